/* Field tables of the V3D decoder (v3d_decode_fields.c), shared with v3d_decode.c and its tests:
 * how each packet's payload and each out-of-line record reads as named fields. */
#ifndef FERRY_DEBUG_V3D_DECODE_PRIV_H
#define FERRY_DEBUG_V3D_DECODE_PRIV_H

#include <stddef.h>
#include <stdint.h>

enum v3dd_kind {
	V3DD_UINT,     /* decimal */
	V3DD_HEX,      /* 0x... (clear colors, masks) */
	V3DD_BOOL,
	V3DD_ADDR,     /* value << (32 - size), annotated with its buffer */
	V3DD_FLOAT,    /* 32-bit IEEE bits */
	V3DD_F187,     /* the top 16 bits of a float */
	V3DD_U14_8,    /* unsigned fixed point, 8 fraction bits */
	V3DD_INT,      /* two's complement */
	V3DD_MINUS1,   /* stored minus one: printed + 1 */
	V3DD_ENUM,     /* names[value], or the number with "?" */
	V3DD_TILE_PX,  /* log2 tile size code: 8 << value pixels */
};

struct v3dd_field {
	const char *name;
	uint16_t start;   /* bit offset from the first payload byte (records: from byte 0) */
	uint8_t size;     /* bits, 1..64 */
	uint8_t kind;     /* enum v3dd_kind */
	const char *const *names;
	uint8_t nr_names;
};

#define V3DD_VER42 1u
#define V3DD_VER71 2u
#define V3DD_BOTH (V3DD_VER42 | V3DD_VER71)

struct v3dd_layout {
	uint8_t opcode;
	uint8_t vers;        /* V3DD_VER42 / V3DD_VER71 */
	int8_t sub_id;       /* TILE_RENDERING_MODE_CFG's sub-packet, -1 for every other packet */
	const char *suffix;  /* CLIF name suffix of a sub-packet ("COMMON"), else NULL */
	const struct v3dd_field *fields;
	size_t nr_fields;
};

/* The payload layout of opcode (with sub_id for TILE_RENDERING_MODE_CFG, else ignored) on ver,
 * NULL when the packet has no payload or no layout is known. */
const struct v3dd_layout *v3dd_find_layout(int ver, uint8_t opcode, int sub_id);
/* Every layout, for the tests' consistency checks. */
extern const struct v3dd_layout v3dd_layouts[];
extern const size_t v3dd_nr_layouts;

enum v3dd_record {
	V3DD_REC_GL_SHADER,          /* GL Shader State Record */
	V3DD_REC_ATTRIBUTE,          /* GL Shader State Attribute Record */
	V3DD_REC_GEOMETRY,           /* Geometry Shader State Record */
	V3DD_REC_TG_COMMON,          /* Tessellation/Geometry Common Params */
	V3DD_REC_TG_PARAMS,          /* Tessellation/Geometry Shader Params */
	V3DD_REC_TF_SPEC,            /* Transform Feedback Output Data Spec (16 bits) */
	V3DD_REC_COUNT
};
/* Fields and byte size of a record on ver; size 0 if unknown. */
const struct v3dd_field *v3dd_record_fields(int ver, enum v3dd_record r, size_t *nr, uint32_t *size,
					    const char **name);

#endif
