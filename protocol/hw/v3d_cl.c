/* V3D control-list packet tables: names, lengths per version (4.2 / 7.1), which list a packet
 * belongs to, and the address fields of packets and out-of-line structures. Every entry is from
 * Mesa src/broadcom/cle/v3d_packet.xml; lengths are 1 + ceil(max(start + size) / 8). */
#include "ferry/hw/v3d_cl.h"

struct v3d_cl_packet_info {
	const char *name;
	uint8_t len42, len71; /* 0: the opcode does not exist on that version */
	uint8_t lists;
};

#define B V3D_CL_IN_BIN
#define R V3D_CL_IN_RENDER
#define BR V3D_CL_IN_BOTH
#define P(op, nm, l42, l71, li) [op] = { nm, l42, l71, li }

static const struct v3d_cl_packet_info packets[256] = {
	P(V3D_CL_HALT, "Halt", 1, 1, BR),
	P(V3D_CL_NOP, "NOP", 1, 1, BR),
	P(V3D_CL_FLUSH, "Flush", 1, 1, BR),
	P(V3D_CL_FLUSH_ALL_STATE, "Flush All State", 1, 1, BR),
	P(V3D_CL_START_TILE_BINNING, "Start Tile Binning", 1, 1, BR),
	P(V3D_CL_INCREMENT_SEMAPHORE, "Increment Semaphore", 1, 1, BR),
	P(V3D_CL_WAIT_ON_SEMAPHORE, "Wait on Semaphore", 1, 1, BR),
	P(V3D_CL_WAIT_FOR_PREVIOUS_FRAME, "Wait for previous frame", 1, 1, BR),
	P(V3D_CL_ENABLE_Z_ONLY, "Enable Z-only rendering", 1, 1, R),
	P(V3D_CL_DISABLE_Z_ONLY, "Disable Z-only rendering", 1, 1, R),
	P(V3D_CL_END_OF_Z_ONLY, "End of Z-only rendering in frame", 1, 1, BR),
	P(V3D_CL_END_OF_RENDERING, "End of rendering", 1, 1, BR),
	P(V3D_CL_WAIT_FOR_TRANSFORM_FEEDBACK, "Wait for transform feedback", 2, 2, B),
	P(V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST, "Branch to auto-chained sub-list", 5, 5, BR),
	P(V3D_CL_BRANCH, "Branch", 5, 5, BR),
	P(V3D_CL_BRANCH_TO_SUB_LIST, "Branch to Sub-list", 5, 5, BR),
	P(V3D_CL_RETURN_FROM_SUB_LIST, "Return from sub-list", 1, 1, BR),
	P(V3D_CL_FLUSH_VCD_CACHE, "Flush VCD cache", 1, 1, BR),
	P(V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST, "Start Address of Generic Tile List", 9, 9, BR),
	P(V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST, "Branch to Implicit Tile List", 2, 2, BR),
	P(V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE, "Branch to Explicit Supertile", 8, 8, BR),
	P(V3D_CL_SUPERTILE_COORDINATES, "Supertile Coordinates", 3, 3, BR),
	/* 4.2 "Clear Tile Buffers" (2 B) became 7.1 "Clear Render Targets" (1 B); named at lookup */
	P(V3D_CL_CLEAR_TILE_BUFFERS, "Clear Tile Buffers", 2, 1, R),
	P(V3D_CL_END_OF_LOADS, "End of Loads", 1, 1, R),
	P(V3D_CL_END_OF_TILE_MARKER, "End of Tile Marker", 1, 1, R),
	P(V3D_CL_STORE_TILE_BUFFER_GENERAL, "Store Tile Buffer General", 13, 13, R),
	P(V3D_CL_LOAD_TILE_BUFFER_GENERAL, "Load Tile Buffer General", 13, 13, R),
	P(V3D_CL_TRANSFORM_FEEDBACK_FLUSH_AND_COUNT, "Transform Feedback Flush and Count", 1, 1, BR),
	P(V3D_CL_INDEXED_PRIM_LIST, "Indexed Prim List", 10, 10, B),
	P(V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST, "Indirect Indexed Instanced Prim List", 11, 11, B),
	P(V3D_CL_INDEXED_INSTANCED_PRIM_LIST, "Indexed Instanced Prim List", 14, 14, B),
	P(V3D_CL_VERTEX_ARRAY_PRIMS, "Vertex Array Prims", 10, 10, B),
	P(V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS, "Indirect Vertex Array Instanced Prims", 11, 11, B),
	P(V3D_CL_VERTEX_ARRAY_INSTANCED_PRIMS, "Vertex Array Instanced Prims", 14, 14, B),
	P(V3D_CL_VERTEX_ARRAY_SINGLE_INSTANCE_PRIMS, "Vertex Array Single Instance Prims", 14, 14, B),
	P(V3D_CL_BASE_VERTEX_BASE_INSTANCE, "Base Vertex Base Instance", 9, 9, B),
	P(V3D_CL_INDEX_BUFFER_SETUP, "Index Buffer Setup", 9, 9, B),
	P(V3D_CL_SET_INSTANCEID, "Set InstanceID", 5, 5, B),
	P(V3D_CL_SET_PRIMITIVEID, "Set PrimitiveID", 5, 5, B),
	P(V3D_CL_PRIM_LIST_FORMAT, "Prim List Format", 2, 2, BR),
	P(V3D_CL_SERIAL_NUMBER_LIST_START, "Serial Number List Start", 5, 5, BR),
	P(V3D_CL_GL_SHADER_STATE, "GL Shader State", 5, 5, BR),
	P(V3D_CL_GL_SHADER_STATE_INCLUDING_TS, "GL Shader State including TS", 5, 5, BR),
	P(V3D_CL_GL_SHADER_STATE_INCLUDING_GS, "GL Shader State including GS", 5, 5, BR),
	P(V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS, "GL Shader State including TS/GS", 5, 5, BR),
	P(V3D_CL_VCM_CACHE_SIZE, "VCM Cache Size", 2, 2, BR),
	P(V3D_CL_PRIMITIVE_COUNTS_FEEDBACK, "Primitive Counts Feedback", 5, 5, BR),
	P(V3D_CL_TRANSFORM_FEEDBACK_BUFFER, "Transform Feedback Buffer", 9, 9, BR),
	P(V3D_CL_TRANSFORM_FEEDBACK_SPECS, "Transform Feedback Specs", 2, 2, BR),
	P(V3D_CL_FLUSH_TRANSFORM_FEEDBACK_DATA, "Flush Transform Feedback Data", 1, 1, BR),
	P(V3D_CL_L1_CACHE_FLUSH_CONTROL, "L1 Cache Flush Control", 3, 3, BR),
	/* mode 4 bits at 64: ceil(68 / 8) = 9 payload bytes */
	P(V3D_CL_L2T_CACHE_FLUSH_CONTROL, "L2T Cache Flush Control", 10, 10, BR),
	P(V3D_CL_STENCIL_CFG, "Stencil Cfg", 6, 6, BR),
	P(V3D_CL_BLEND_ENABLES, "Blend Enables", 2, 2, BR),
	P(V3D_CL_BLEND_CFG, "Blend Cfg", 5, 5, BR),
	P(V3D_CL_BLEND_CONSTANT_COLOR, "Blend Constant Color", 9, 9, BR),
	P(V3D_CL_COLOR_WRITE_MASKS, "Color Write Masks", 5, 5, BR),
	P(V3D_CL_ZERO_ALL_CENTROID_FLAGS, "Zero All Centroid Flags", 1, 1, BR),
	P(V3D_CL_CENTROID_FLAGS, "Centroid Flags", 5, 5, BR),
	P(V3D_CL_SAMPLE_STATE, "Sample State", 5, 5, BR),
	P(V3D_CL_OCCLUSION_QUERY_COUNTER, "Occlusion Query Counter", 5, 5, BR),
	P(V3D_CL_DEPTH_BOUNDS_TEST_LIMITS, "Depth Bounds Test Limits", 0, 9, BR),
	P(V3D_CL_CFG_BITS, "Cfg Bits", 4, 4, BR),
	P(V3D_CL_ZERO_ALL_FLAT_SHADE_FLAGS, "Zero All Flat Shade Flags", 1, 1, BR),
	P(V3D_CL_FLAT_SHADE_FLAGS, "Flat Shade Flags", 5, 5, BR),
	P(V3D_CL_ZERO_ALL_NON_PERSPECTIVE_FLAGS, "Zero All Non-perspective Flags", 1, 1, BR),
	P(V3D_CL_NON_PERSPECTIVE_FLAGS, "Non-perspective Flags", 5, 5, BR),
	P(V3D_CL_POINT_SIZE, "Point size", 5, 5, BR),
	P(V3D_CL_LINE_WIDTH, "Line width", 5, 5, BR),
	P(V3D_CL_DEPTH_OFFSET, "Depth Offset", 9, 9, BR),
	P(V3D_CL_CLIP_WINDOW, "Clip Window", 9, 9, BR),
	P(V3D_CL_VIEWPORT_OFFSET, "Viewport Offset", 9, 9, BR),
	P(V3D_CL_CLIPPER_Z_MIN_MAX_CLIPPING_PLANES, "Clipper Z min/max clipping planes", 9, 9, BR),
	P(V3D_CL_CLIPPER_XY_SCALING, "Clipper XY Scaling", 9, 9, B),
	P(V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET, "Clipper Z Scale and Offset", 9, 9, B),
	P(V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET_NO_GUARDBAND, "Clipper Z Scale and Offset no guardband", 0, 9, B),
	P(V3D_CL_NUMBER_OF_LAYERS, "Number of Layers", 2, 2, BR),
	P(V3D_CL_TILE_BINNING_MODE_CFG, "Tile Binning Mode Cfg", 9, 9, BR),
	P(V3D_CL_TILE_RENDERING_MODE_CFG, "Tile Rendering Mode Cfg", 9, 9, R),
	P(V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG, "Multicore Rendering Supertile Cfg", 9, 9, R),
	P(V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE, "Multicore Rendering Tile List Set Base", 5, 5, R),
	P(V3D_CL_TILE_COORDINATES, "Tile Coordinates", 4, 4, BR),
	P(V3D_CL_TILE_COORDINATES_IMPLICIT, "Tile Coordinates Implicit", 1, 1, BR),
	P(V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE, "Tile List Initial Block Size", 2, 2, BR),
};

#undef P

static const struct v3d_cl_packet_info *lookup(int ver, uint8_t opcode)
{
	const struct v3d_cl_packet_info *info = &packets[opcode];
	if (!v3d_ver_valid(ver) || !info->name)
		return NULL;
	if ((ver == V3D_VER_42 ? info->len42 : info->len71) == 0)
		return NULL;
	return info;
}

uint32_t v3d_cl_fixed_length(int ver, uint8_t opcode)
{
	const struct v3d_cl_packet_info *info = lookup(ver, opcode);
	if (!info)
		return 0;
	return ver == V3D_VER_42 ? info->len42 : info->len71;
}

uint32_t v3d_cl_packet_length(int ver, const uint8_t *p, uint32_t avail)
{
	uint32_t len = v3d_cl_fixed_length(ver, p[0]);
	if (len == 0 || p[0] != V3D_CL_TRANSFORM_FEEDBACK_SPECS)
		return len;
	if (avail < 2)
		return 2;
	return 2u + 2u * (uint32_t)v3d_cl_get(p + 1, V3D_CL_TF_SPECS_COUNT);
}

const char *v3d_cl_opcode_name(int ver, uint8_t opcode)
{
	const struct v3d_cl_packet_info *info = lookup(ver, opcode);
	if (!info)
		return NULL;
	if (opcode == V3D_CL_CLEAR_TILE_BUFFERS && ver >= V3D_VER_71)
		return "Clear Render Targets";
	return info->name;
}

uint32_t v3d_cl_packet_lists(int ver, uint8_t opcode)
{
	const struct v3d_cl_packet_info *info = lookup(ver, opcode);
	return info ? info->lists : 0;
}

/* ---- field access: fields over 56 bits that span 9 bytes ------------------------------------ */

uint64_t v3d_cl_get_wide(const uint8_t *payload, unsigned start, unsigned size)
{
	uint64_t lo = v3d_cl_get(payload, start, 32);
	return lo | v3d_cl_get(payload, start + 32u, size - 32u) << 32;
}

void v3d_cl_set_wide(uint8_t *payload, unsigned start, unsigned size, uint64_t value)
{
	v3d_cl_set(payload, start, 32, value);
	v3d_cl_set(payload, start + 32u, size - 32u, value >> 32);
}

/* ---- address fields ---------------------------------------------------------------------- */

static const struct v3d_cl_addr_field f_branch[] = { { 0, 32, "address" } };
static const struct v3d_cl_addr_field f_generic_tile_list[] = { { 0, 32, "start" }, { 32, 32, "end" } };
static const struct v3d_cl_addr_field f_explicit_supertile[] = {
	{ 24, 32, "Absolute address of explicit supertile render list" } };
static const struct v3d_cl_addr_field f_load_store[] = { { 64, 32, "Address" } };
static const struct v3d_cl_addr_field f_indirect[] = { { 40, 32, "Address" } };
static const struct v3d_cl_addr_field f_index_buffer[] = { { 0, 32, "Address" } };
static const struct v3d_cl_addr_field f_serial_number[] = { { 6, 26, "address" } };
static const struct v3d_cl_addr_field f_gl_shader[] = { { 5, 27, "address" } };
static const struct v3d_cl_addr_field f_prim_counts[] = { { 5, 27, "address" } };
static const struct v3d_cl_addr_field f_tf_buffer[] = { { 32, 32, "Buffer Address" } };
static const struct v3d_cl_addr_field f_l2t_flush[] = { { 0, 32, "L2T Flush Start" },
							{ 32, 32, "L2T Flush End" } };
static const struct v3d_cl_addr_field f_occlusion[] = { { 0, 32, "address" } };
static const struct v3d_cl_addr_field f_tile_list_base[] = { { 6, 26, "address" } };

#define FIELDS(a) (*fields = (a), sizeof(a) / sizeof((a)[0]))

size_t v3d_cl_address_fields(int ver, uint8_t opcode, const struct v3d_cl_addr_field **fields)
{
	*fields = NULL;
	if (!lookup(ver, opcode))
		return 0;
	switch (opcode) {
	case V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST:
	case V3D_CL_BRANCH:
	case V3D_CL_BRANCH_TO_SUB_LIST: return FIELDS(f_branch);
	case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST: return FIELDS(f_generic_tile_list);
	case V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE: return FIELDS(f_explicit_supertile);
	case V3D_CL_STORE_TILE_BUFFER_GENERAL:
	case V3D_CL_LOAD_TILE_BUFFER_GENERAL: return FIELDS(f_load_store);
	case V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST:
	case V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS: return FIELDS(f_indirect);
	case V3D_CL_INDEX_BUFFER_SETUP: return FIELDS(f_index_buffer);
	case V3D_CL_SERIAL_NUMBER_LIST_START: return FIELDS(f_serial_number);
	case V3D_CL_GL_SHADER_STATE:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_TS:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_GS:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS: return FIELDS(f_gl_shader);
	case V3D_CL_PRIMITIVE_COUNTS_FEEDBACK: return FIELDS(f_prim_counts);
	case V3D_CL_TRANSFORM_FEEDBACK_BUFFER: return FIELDS(f_tf_buffer);
	case V3D_CL_L2T_CACHE_FLUSH_CONTROL: return FIELDS(f_l2t_flush);
	case V3D_CL_OCCLUSION_QUERY_COUNTER: return FIELDS(f_occlusion);
	case V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE: return FIELDS(f_tile_list_base);
	default: return 0;
	}
}

/* Code addresses are 29 bits (8 B aligned) under 3 flag bits: 4-way threadable, start in final
 * thread section, propagate NaNs. */
static const struct v3d_cl_addr_field s_gl_record_42[] = {
	{ 64, 32, "Address of default attribute values" },
	{ 99, 29, "Fragment Shader Code Address" },
	{ 128, 32, "Fragment Shader Uniforms Address" },
	{ 163, 29, "Vertex Shader Code Address" },
	{ 192, 32, "Vertex Shader Uniforms Address" },
	{ 227, 29, "Coordinate Shader Code Address" },
	{ 256, 32, "Coordinate Shader Uniforms Address" },
};
static const struct v3d_cl_addr_field s_gl_record_71[] = {
	{ 67, 29, "Fragment Shader Code Address" },
	{ 96, 32, "Fragment Shader Uniforms Address" },
	{ 131, 29, "Vertex Shader Code Address" },
	{ 160, 32, "Vertex Shader Uniforms Address" },
	{ 195, 29, "Coordinate Shader Code Address" },
	{ 224, 32, "Coordinate Shader Uniforms Address" },
};
static const struct v3d_cl_addr_field s_attribute[] = { { 0, 32, "Address" } };
static const struct v3d_cl_addr_field s_geometry[] = {
	{ 3, 29, "Geometry Bin Mode Shader Code Address" },
	{ 32, 32, "Geometry Bin Mode Shader Uniforms Address" },
	{ 67, 29, "Geometry Render Mode Shader Code Address" },
	{ 96, 32, "Geometry Render Mode Shader Uniforms Address" },
};
static const struct v3d_cl_addr_field s_tessellation[] = {
	{ 3, 29, "Tessellation Bin Mode Control Shader Code Address" },
	{ 32, 32, "Tessellation Bin Mode Control Shader Uniforms Address" },
	{ 67, 29, "Tessellation Render Mode Control Shader Code Address" },
	{ 96, 32, "Tessellation Render Mode Control Shader Uniforms Address" },
	{ 131, 29, "Tessellation Bin Mode Evaluation Shader Code Address" },
	{ 160, 32, "Tessellation Bin Mode Evaluation Shader Uniforms Address" },
	{ 195, 29, "Tessellation Render Mode Evaluation Shader Code Address" },
	{ 224, 32, "Tessellation Render Mode Evaluation Shader Uniforms Address" },
};
static const struct v3d_cl_addr_field s_texture_42[] = { { 0, 32, "Texture base pointer" } };
/* 7.1: the YCbCr plane pointers are declared as 26-bit uints holding address >> 6 (the xml
 * explains why they cannot be typed as addresses); they are addresses all the same. */
static const struct v3d_cl_addr_field s_texture_71[] = {
	{ 0, 32, "Texture base pointer" },
	{ 138, 26, "texture base pointer Cb" },
	{ 164, 26, "texture base pointer Cr" },
};

uint32_t v3d_cl_struct_size(int ver, enum v3d_cl_struct s)
{
	if (!v3d_ver_valid(ver))
		return 0;
	switch (s) {
	case V3D_CL_STRUCT_GL_SHADER_STATE_RECORD: return ver == V3D_VER_42 ? 36u : 32u;
	case V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD: return 16;
	case V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD: return 16;
	case V3D_CL_STRUCT_TESSELLATION_SHADER_RECORD: return 32;
	case V3D_CL_STRUCT_TEXTURE_SHADER_STATE: return 24;
	}
	return 0;
}

size_t v3d_cl_struct_address_fields(int ver, enum v3d_cl_struct s,
				    const struct v3d_cl_addr_field **fields)
{
	*fields = NULL;
	if (!v3d_ver_valid(ver))
		return 0;
	switch (s) {
	case V3D_CL_STRUCT_GL_SHADER_STATE_RECORD:
		return ver == V3D_VER_42 ? FIELDS(s_gl_record_42) : FIELDS(s_gl_record_71);
	case V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD: return FIELDS(s_attribute);
	case V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD: return FIELDS(s_geometry);
	case V3D_CL_STRUCT_TESSELLATION_SHADER_RECORD: return FIELDS(s_tessellation);
	case V3D_CL_STRUCT_TEXTURE_SHADER_STATE:
		return ver == V3D_VER_42 ? FIELDS(s_texture_42) : FIELDS(s_texture_71);
	}
	return 0;
}
