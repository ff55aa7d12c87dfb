/* The V3D 4.2 / 7.1 validator and relocator: walks every control list a SUBMIT_CL job makes the
 * CLE read, checks it vc4-style, and produces host-private shadow copies to submit instead; checks
 * TFU registers and CSD cfg[] addresses. A pure library: no sockets, no kdev calls, no allocation
 * per submit once warmed up. Shaped like pm4_validate.h.
 *
 * SECURITY MODEL (read this first). V3D has one global GPU address space shared by every client,
 * and QPU shaders compute arbitrary addresses (TMU general reads/writes, uniform streams whose
 * address words only the compiled shader can identify, texture and sampler state reached through
 * them). This validator confines what the control-list executor, the tile buffer loads/stores,
 * the binner's tile memory, the TFU and the CSD's code/uniform pointers touch. It cannot confine
 * shaders: untrusted V3D tenants need exclusive use of the device (docs/security.md).
 *
 * CONTRACT
 *
 * Input (struct v3dval_cl_submit):
 *  - bos[]: every BO of the submitting context, sorted by address, non-overlapping, each
 *    [addr, addr + size) below 4 GiB, with its host mapping (read-only is enough; NULL if the host
 *    cannot read it: such a BO can hold data but no command lists or shader records) and its id
 *    (for messages). Checked on every call. A BO of another context is simply absent, so every
 *    address in it is rejected.
 *  - bcl [start, end) and rcl [start, end): global V3D addresses as the kernel's CT0/CT1 CA/EA.
 *    bcl_start == bcl_end: no bin job. qma / qms / qts: the bin job's tile allocation memory
 *    (address, size) and tile state data array (0: none), checked against the binning config.
 *  - relocs[] (struct v3dval_reloc): the address field at bit field_start (field_size bits, the
 *    field holding address >> (32 - field_size)) of the packet whose opcode byte is at byte
 *    cl_offset of bos[cl_bo] (kind PACKET), or of the shader-state structure starting there (kind
 *    RECORD: the GL / geometry shader state record, attribute record), becomes
 *    bos[bo_index].addr + bo_offset, keeping the field's neighbouring bits (v3d_cl_set_address).
 *    Applied to the copies only, before validation, so relocated addresses are checked like any
 *    other; equal positions: the later entry wins. A PACKET reloc must name one of the packet's
 *    address fields (v3d_cl_address_fields), a RECORD reloc one of the structure's; a reloc that
 *    lands inside a walked list but not on a walked packet is rejected; one outside everything
 *    the GPU reads is ignored.
 *  - a shadow allocator: alloc(ctx, size, &out) -> 0 and {global address, writable host map} of
 *    size bytes of GPU-visible memory the guest can neither map nor name, V3DVAL_SHADOW_ALIGN
 *    aligned, or < 0. Called once per distinct list segment, and once for all the job's
 *    shader-state blocks (laid out one after the other at the 32-byte steps GL_SHADER_STATE can
 *    name), after the whole job validated. Every list shadow is allocated with the CLE's read-ahead
 *    (v3d_cle_readahead: 256 B on 4.2, 1024 B on 7.1) of zeroed slack past its last packet, so
 *    the prefetcher never leaves the shadow.
 *  - a policy (v3dval_policy_default(ver) fills the defaults).
 *
 * Walk. The bin list (at top level) runs from bcl_start until it reaches bcl_end at a packet
 * boundary, or a HALT; the render list likewise. The walk follows, in execution order:
 * BRANCH (same level, a new segment), BRANCH_TO_SUB_LIST (a sub-list, ends at RETURN; the CLE has
 * one return register, so a call inside a call is rejected, as is RETURN with nothing to return
 * to), START_ADDRESS_OF_GENERIC_TILE_LIST (render only, walked once at its definition; ends at
 * RETURN or its end address). Implicit tile lists (BRANCH_TO_IMPLICIT_TILE_LIST) are written by
 * the binner, not by the guest: the tile list base must lie in this job's tile allocation memory
 * [qma, qma + qms) (so a render job without a bin job may not use them), with the read-ahead past
 * its last tile's list inside the same BO. Those lists are commands the render job executes, and
 * the guest could write its own qma BO between the bin and the render job, so by default
 * (policy.shadow_tile_memory) the bin job gets host-private tile memory instead: a shadow of qms
 * bytes (+ read-ahead) for qma, a zeroed shadow of the tile state for qts, and every tile list
 * base inside [qma, qma + qms) is moved to the same offset in it; the result's qma / qts are the
 * shadows (the read-ahead rule above then concerns the shadow and is not checked). Rules:
 *  - opcodes in the policy's allow-list for the list (bin / render), with their fixed length for
 *    the version; the frame-level packets (rendering / binning mode config, supertile config,
 *    tile list base, initial block size, generic tile list, supertile coordinates, start tile
 *    binning) only at top level; load/store and tile work only after the Common rendering
 *    config; once tile work started (tile coordinates, supertiles, tile lists, loads / stores),
 *    the frame geometry (Common config, supertile config's frame tiles, initial block size) may
 *    be repeated (v3dv does per layer) but not changed; explicit tile coordinates inside the
 *    frame (they index the implicit tile lists); several binning configs: the largest counts;
 *  - every address field inside one BO of the context, with the extent the packet implies:
 *    load/store general (raster: stride x rows + width x bytes per pixel; tiled formats: the
 *    padded Mesa layout; flip-Y rows; 4x decimation), index buffer (size), indirect draw
 *    records (count x stride), transform feedback buffer (size), primitive counts (32 / 64 B),
 *    occlusion query counter (4 B, 0 = disabled), tile list base (tiles x initial block); qma
 *    (qms >= tiles x layers x initial block) and qts (256 B per tile and layer);
 *  - GL shader state: the block (geometry record and parameters for the GS variant, the GL
 *    record, N attribute records, 1 <= N <= 16) inside one host-readable context BO; its shader
 *    code, uniforms, default-attribute and attribute addresses inside context BOs (0 allowed for
 *    uniforms and default attributes). The block is copied to a shadow like a list, and the packet
 *    repointed at it, keeping its attribute count. The TS variants (no Mesa driver emits them) are
 *    refused by the default policy. Note: this checks pointers the CLE hands to the hardware; the
 *    shaders they point at can still reach any address (see above);
 *  - no cycles: a branch or call target inside a segment already walked is rejected, except a
 *    call to the exact start of a sub-list / generic tile list already walked at the same level,
 *    which reuses its shadow;
 *  - every list ends: a packet running past the end of its BO, or straddling the top-level end
 *    address, is rejected; the render list's last packet before its end must be END_OF_RENDERING
 *    (policy);
 *  - bounded work: policy.max_walk_bytes, max_segments, max_blocks.
 *
 * Every byte is read from the guest once, into the validator's copy, and only the copy is checked,
 * relocated and written to the shadow: nothing the guest writes afterwards changes what runs
 * (no TOCTOU). Branch / sub-list / generic tile list targets (start and end) are rewritten to the
 * shadows; the result gives the shadow bcl/rcl start and end for the kernel submit.
 *
 * Errors: -1, and *err names the rule, the packet (v3d_cl_opcode_name), the list and level, the
 * guest address and BO offset, and the offending address, e.g.
 * "Store Tile Buffer General at render list 0x00012048 (bo 3 +0x48): Address 0x00123000
 *  (+0x4000 bytes) outside the context's buffers". Every rule is checked before the first shadow
 * is allocated; if the allocator itself fails part-way, the caller discards this job's shadows.
 *
 * A validator object is not thread-safe; use one per thread. */
#ifndef FERRY_V3D_VALIDATE_H
#define FERRY_V3D_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/v3d_cl.h"

#define V3DVAL_SHADOW_ALIGN 64u

struct v3dval_bo {
	uint32_t addr;   /* global V3D address */
	uint32_t size;   /* bytes */
	const void *map; /* host mapping of the whole BO, or NULL */
	uint32_t id;
};

enum v3dval_reloc_kind {
	V3DVAL_RELOC_PACKET = 0,   /* a field of the packet whose opcode is at cl_offset */
	V3DVAL_RELOC_RECORD = 1,   /* a field of the shader-state structure starting at cl_offset */
	V3DVAL_RELOC_REGISTER = 2, /* TFU / CSD: cl_offset is an enum v3dval_reg, cl_bo unused */
};

/* TFU / CSD registers that hold addresses (relocation targets). */
enum v3dval_reg {
	V3DVAL_REG_TFU_IIA, V3DVAL_REG_TFU_ICA, V3DVAL_REG_TFU_IUA, V3DVAL_REG_TFU_IOA,
	V3DVAL_REG_CSD_CFG5, V3DVAL_REG_CSD_CFG6,
};

struct v3dval_reloc {
	uint32_t cl_bo;       /* index into bos[] of the BO holding the packet / structure */
	uint32_t cl_offset;   /* byte offset of its first byte in that BO (REGISTER: enum v3dval_reg) */
	uint32_t bo_index;    /* index into bos[] of the BO addressed */
	uint32_t bo_offset;   /* byte offset into it (<= its size) */
	uint16_t field_start; /* bit offset: from the packet's payload (the byte after the opcode),
			       * the structure's first byte, or the register's bit 0 */
	uint8_t field_size;   /* 1..32 bits; the field holds address >> (32 - field_size) */
	uint8_t kind;         /* enum v3dval_reloc_kind */
};

struct v3dval_cl_submit {
	const struct v3dval_bo *bos;
	uint32_t nr_bos;
	uint32_t bcl_start, bcl_end; /* equal: no bin job */
	uint32_t rcl_start, rcl_end;
	uint32_t qma, qms, qts;
	const struct v3dval_reloc *relocs;
	uint32_t nr_relocs;
};

struct v3dval_shadow {
	uint32_t addr;
	void *map;
};

struct v3dval_shadow_allocator {
	int (*alloc)(void *ctx, uint32_t size_bytes, struct v3dval_shadow *out);
	void *ctx;
};

enum v3dval_list { V3DVAL_LIST_BIN = 0, V3DVAL_LIST_RENDER = 1, V3DVAL_LIST_TFU, V3DVAL_LIST_CSD };

struct v3dval_policy {
	int ver;                        /* 42 or 71 */
	uint32_t allow[2][256 / 32];    /* [enum v3dval_list BIN/RENDER] bitmap of allowed opcodes */
	uint64_t max_walk_bytes;        /* list bytes copied and walked per job */
	uint32_t max_segments;          /* list segments per job */
	uint32_t max_blocks;            /* distinct shader-state blocks per job */
	bool require_end_of_rendering;  /* the render list's last packet is END_OF_RENDERING */
	bool shadow_tile_memory;        /* give the bin job host-private tile memory (see above) */
	uint32_t max_tile_memory;       /* largest qms accepted when shadow_tile_memory */
};

/* Defaults for ver: the packets Mesa's v3d / v3dv emit into each list, 64 MiB, 4096 segments,
 * 65536 blocks, END_OF_RENDERING required, tile memory shadowed up to 64 MiB. */
void v3dval_policy_default(struct v3dval_policy *p, int ver);
static inline void v3dval_policy_allow(struct v3dval_policy *p, enum v3dval_list list, uint8_t opcode,
				       bool allow)
{
	if (allow)
		p->allow[list & 1][opcode >> 5] |= 1u << (opcode & 31);
	else
		p->allow[list & 1][opcode >> 5] &= ~(1u << (opcode & 31));
}

enum v3dval_rule {
	V3DVAL_OK = 0,
	V3DVAL_ERR_INPUT,        /* BO table unsorted/overlapping/past 4 GiB, bad version */
	V3DVAL_ERR_RELOC,        /* reloc index, range, or field not an address field */
	V3DVAL_ERR_UNKNOWN,      /* opcode that does not exist on this version */
	V3DVAL_ERR_FORBIDDEN,    /* opcode not in the allow-list of this list */
	V3DVAL_ERR_LEVEL,        /* frame-level packet inside a sub-list / tile list */
	V3DVAL_ERR_STATE,        /* packet out of order, duplicate frame config, missing config */
	V3DVAL_ERR_MALFORMED,    /* field values the hardware cannot take */
	V3DVAL_ERR_TARGET,       /* list / record start not inside a host-readable context BO */
	V3DVAL_ERR_ADDRESS,      /* address (+ extent) outside the context's buffers */
	V3DVAL_ERR_CYCLE,        /* branch / call target already walked */
	V3DVAL_ERR_NESTING,      /* sub-list call inside a call, RETURN with no call */
	V3DVAL_ERR_NO_END,       /* list runs off its BO, straddles its end, or lacks its end packet */
	V3DVAL_ERR_READAHEAD,    /* CLE read-ahead past a GPU-written tile list leaves its BO */
	V3DVAL_ERR_LIMIT,        /* work caps */
	V3DVAL_ERR_SHADOW,       /* shadow allocator failed or returned a misaligned address */
	V3DVAL_ERR_NOMEM,
	V3DVAL_ERR_UNSUPPORTED,  /* TFU / CSD configuration the validator cannot bound */
};

const char *v3dval_rule_text(enum v3dval_rule rule);

enum v3dval_level { V3DVAL_LEVEL_TOP = 0, V3DVAL_LEVEL_SUB_LIST, V3DVAL_LEVEL_TILE_LIST, V3DVAL_LEVEL_RECORD };

struct v3dval_error {
	enum v3dval_rule rule;
	int opcode;              /* the packet's opcode, -1 when the error is not about a packet */
	enum v3dval_list list;
	enum v3dval_level level;
	uint32_t addr;           /* guest address of the packet / structure (0 if none) */
	uint32_t bo_id;          /* BO holding it (when in_bo) */
	uint32_t bo_offset;
	bool in_bo;
	uint32_t bad_addr;       /* offending address (TARGET / ADDRESS / CYCLE / READAHEAD) */
	char msg[320];
};

struct v3dval_cl_result {
	uint32_t bcl_start, bcl_end; /* shadow addresses (equal and 0 when there is no bin job) */
	uint32_t rcl_start, rcl_end;
	uint32_t qma, qms, qts;      /* the tile memory shadows (policy.shadow_tile_memory, with a bin
				      * job), else as submitted; checked either way */
	uint32_t nr_segments;        /* list shadows made */
	uint32_t nr_blocks;          /* shader-state block shadows made */
	uint64_t bytes;              /* list bytes walked */
	uint32_t packets;
	uint32_t relocs_applied;
};

struct v3dval;

/* NULL on allocation failure or an invalid policy (version). */
struct v3dval *v3dval_create(const struct v3dval_policy *policy);
void v3dval_destroy(struct v3dval *v);

/* 0: *result filled. -1: rejected, *err filled (result untouched). */
int v3dval_validate_cl(struct v3dval *v, const struct v3dval_cl_submit *submit,
		       const struct v3dval_shadow_allocator *alloc, struct v3dval_cl_result *result,
		       struct v3dval_error *err);

/* ---- TFU and CSD (v3d_tfu_csd.c): register checks, no shadows needed --------------------- */

/* Relocates (REGISTER relocs on IIA / ICA / IUA / IOA; IOA's flag bits kept by the field position)
 * and checks a TFU job: the input surface (raster with IIS pixels per row, or LT / UBLINEAR / UIF
 * with IIS the padded height in UIF blocks) and the output surface (its tiled layout, UIF padding,
 * and the mip levels NUMMM generates below level 0), each inside one context BO, texture type
 * with whole-byte texels, non-empty size. SAND and YUV (ICA / IUA / USECOEF) inputs are refused:
 * Mesa's copies do not use them and their plane layouts are not bounded here. *out = the
 * relocated registers to submit. 0 or -1 with *err. */
int v3dval_validate_tfu(int ver, const struct v3dval_bo *bos, uint32_t nr_bos,
			const struct v3d_tfu_regs *regs, const struct v3dval_reloc *relocs,
			uint32_t nr_relocs, struct v3d_tfu_regs *out, struct v3dval_error *err);

/* Relocates (REGISTER relocs on CFG5 / CFG6) and checks a CSD job: workgroup counts X, Y, Z
 * non-zero (the hardware reads 0 as 65536, the kernel skips such jobs), cfg[4] the batch count
 * ceil(WG_SIZE / 16) x X x Y x Z (minus one; 7.1 also accepts it without, as 7.1.6+ take it),
 * computed without overflow; cfg[5] (shader code | 3 flag bits) and cfg[6] (uniforms, 4-byte
 * aligned) inside context BOs; cfg[7] (7.1's CFG7, which the kernel writes as 0) zero.
 * out_cfg = the relocated cfg[0..7]. 0 or -1 with *err. */
int v3dval_validate_csd(int ver, const struct v3dval_bo *bos, uint32_t nr_bos, const uint32_t cfg[8],
			const struct v3dval_reloc *relocs, uint32_t nr_relocs, uint32_t out_cfg[8],
			struct v3dval_error *err);

#endif
