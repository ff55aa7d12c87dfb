/* How V3D 4.2 / 7.1 packets and out-of-line records read as named fields, for the decoder.
 * Layouts the shared header ferry/hw/v3d_cl.h defines are used through its macros; the rest are
 * read from Mesa src/broadcom/cle/v3d_packet.xml (<vcxml gen="3.3" min_ver="42" max_ver="71">),
 * field by field (start/size as there, "Nb" = byte N), names shortened to snake case. */
#include "v3d_decode_priv.h"

#include "ferry/hw/v3d_cl.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define E(a) a, (uint8_t)N(a)
/* The position may be one of the header's "start, size" macros, so it is expanded before being
 * split into start and size. */
#define F(nm, ...) F_(nm, __VA_ARGS__)
#define F_(nm, start, size, kind) { nm, start, size, kind, NULL, 0 }
#define FE(nm, ...) FE_(nm, __VA_ARGS__)
#define FE_(nm, start, size, names) { nm, start, size, V3DD_ENUM, E(names) }

/* ---- enums (v3d_packet.xml <enum>) ---------------------------------------------------------- */

static const char *const tile_buffers[] = { "rt0", "rt1", "rt2", "rt3", "rt4", "rt5", "rt6", "rt7",
					    "none", "z", "stencil", "zs" };
static const char *const memory_formats[] = { "raster", "lineartile", "ublinear_1", "ublinear_2",
					      "uif_no_xor", "uif_xor" };
static const char *const image_formats[] = {
	"srgb8_alpha8", "srgb", "rgb10_a2ui", "rgb10_a2", "abgr1555", "alpha_masked_abgr1555", "abgr4444",
	"bgr565", "r11f_g11f_b10f", "rgba32f", "rg32f", "r32f", "rgba32i", "rg32i", "r32i", "rgba32ui",
	"rg32ui", "r32ui", "rgba16f", "rg16f", "r16f", "rgba16i", "rg16i", "r16i", "rgba16ui", "rg16ui",
	"r16ui", "rgba8", "rgb8", "rg8", "r8", "rgba8i", "rg8i", "r8i", "rgba8ui", "rg8ui", "r8ui", NULL,
	NULL, "bstc8", "d32f", "d24", "d16", "d24s8", "s8", "rgba5551",
};
static const char *const decimate_modes[] = { "sample0", "4x", NULL, "all_samples" };
static const char *const dither_modes[] = { "none", "rgb", "a", "rgba" };
static const char *const internal_bpps[] = { "32", "64", "128" };
static const char *const internal_types[] = { "8i", "8ui", "8", NULL, "16i", "16ui", "16f", NULL,
					      "32i", "32ui", "32f" };
static const char *const depth_types[] = { "depth_32f", "depth_24", "depth_16" };
static const char *const rt_clamps[] = { "none", "norm", "pos", "int" };
static const char *const rt_type_clamps[] = {
	[0] = "8i", [1] = "16i", [2] = "32i", [4] = "8ui", [5] = "16ui", [6] = "32ui", [8] = "8",
	[9] = "16f", [10] = "32f", [16] = "8i_clamped", [17] = "16i_clamped", [18] = "32i_clamped",
	[20] = "8ui_clamped", [21] = "16ui_clamped", [22] = "32ui_clamped", [24] = "16f_clamp_norm",
	[25] = "16f_clamp_pos", [26] = "16f_clamp_pq", [27] = "16f_clamp_hlg", [32] = "invalid",
};
static const char *const primitives[] = {
	[0] = "points", [1] = "lines", [2] = "line_loop", [3] = "line_strip", [4] = "triangles",
	[5] = "triangle_strip", [6] = "triangle_fan", [16] = "points_tf", [17] = "lines_tf",
	[18] = "line_loop_tf", [19] = "line_strip_tf", [20] = "triangles_tf", [21] = "triangle_strip_tf",
	[22] = "triangle_fan_tf",
};
static const char *const compare_funcs[] = { "never", "less", "equal", "lequal", "greater", "notequal",
					     "gequal", "always" };
static const char *const stencil_ops[] = { "zero", "keep", "replace", "incr", "decr", "invert",
					   "incwrap", "decwrap" };
static const char *const blend_factors[] = {
	"zero", "one", "src_color", "inv_src_color", "dst_color", "inv_dst_color", "src_alpha",
	"inv_src_alpha", "dst_alpha", "inv_dst_alpha", "const_color", "inv_const_color", "const_alpha",
	"inv_const_alpha", "src_alpha_saturate",
};
static const char *const blend_modes[] = { "add", "sub", "rsub", "min", "max", "mul", "screen", "darken",
					   "lighten" };
static const char *const index_types[] = { "8bit", "16bit", "32bit" };
static const char *const prim_list_types[] = { "points", "lines", "triangles" };
static const char *const block_sizes[] = { "64b", "128b", "256b" };
static const char *const varying_actions[] = { "unchanged", "zeroed", "set" };
static const char *const l2t_flush_modes[] = { "flush", "clear", "clean" };
static const char *const z_clip_modes[] = { "none", "min_one_to_one", "zero_to_one" };
static const char *const line_rasterizations[] = { "diamond_exit", "perp_end_caps" };
static const char *const early_z_directions[] = { "lt_le", "gt_ge" };
static const char *const prim_counts_ops[] = { [0] = "store_primitive_counts",
					       [1] = "store_primitive_counts_and_zero",
					       [2] = "store_buffer_state", [3] = "store_buffer_state_cl",
					       [8] = "load_buffer_state" };
static const char *const attribute_types[] = { NULL, "half_float", "float", "fixed", "byte", "short",
					       "int", "int2_10_10_10" };
static const char *const tess_types[] = { "triangle", "quads", "isolines" };
static const char *const tess_spacings[] = { "even", "fractional_even", "fractional_odd" };
static const char *const gs_output_formats[] = { "points", "line_strip", "tri_strip" };
static const char *const tcs_flush_modes[] = { "fully_packed", "single_patch", "packed_complete_patches" };
static const char *const pack_modes[] = { "16_way", "8_way", "4_way", "1_way" };

/* ---- packets -------------------------------------------------------------------------------- */

static const struct v3dd_field p_wait_tf[] = { F("block_count", 0, 8, V3DD_UINT) };
static const struct v3dd_field p_branch[] = { F("address", V3D_CL_BRANCH_ADDRESS, V3DD_ADDR) };
static const struct v3dd_field p_generic_tile_list[] = {
	F("start", V3D_CL_GENERIC_TILE_LIST_START, V3DD_ADDR),
	F("end", V3D_CL_GENERIC_TILE_LIST_END, V3DD_ADDR),
};
static const struct v3dd_field p_implicit_tile_list[] = {
	F("tile_list_set_number", V3D_CL_IMPLICIT_TILE_LIST_SET, V3DD_UINT) };
static const struct v3dd_field p_explicit_supertile[] = {
	F("column_number", V3D_CL_EXPLICIT_SUPERTILE_COLUMN, V3DD_UINT),
	F("row_number", V3D_CL_EXPLICIT_SUPERTILE_ROW, V3DD_UINT),
	F("explicit_supertile_number", V3D_CL_EXPLICIT_SUPERTILE_NUMBER, V3DD_UINT),
	F("address", V3D_CL_EXPLICIT_SUPERTILE_ADDRESS, V3DD_ADDR),
};
static const struct v3dd_field p_supertile_coords[] = {
	F("column_number_in_supertiles", V3D_CL_SUPERTILE_COLUMN, V3DD_UINT),
	F("row_number_in_supertiles", V3D_CL_SUPERTILE_ROW, V3DD_UINT),
};
static const struct v3dd_field p_clear42[] = {
	F("clear_all_render_targets", V3D_CL_CLEAR_ALL_RENDER_TARGETS, V3DD_BOOL),
	F("clear_z_stencil_buffer", V3D_CL_CLEAR_Z_STENCIL, V3DD_BOOL),
};
static const struct v3dd_field p_store[] = {
	FE("buffer_to_store", V3D_CL_LS_BUFFER, tile_buffers),
	FE("memory_format", V3D_CL_LS_MEMORY_FORMAT, memory_formats),
	F("flip_y", V3D_CL_LS_FLIP_Y, V3DD_BOOL),
	FE("dither_mode", V3D_CL_STORE_DITHER_MODE, dither_modes),
	FE("decimate_mode", V3D_CL_LS_DECIMATE_MODE, decimate_modes),
	FE("output_image_format", V3D_CL_LS_IMAGE_FORMAT, image_formats),
	F("clear_buffer_being_stored", V3D_CL_STORE_CLEAR_BUFFER, V3DD_BOOL),
	F("channel_reverse", V3D_CL_LS_CHANNEL_REVERSE, V3DD_BOOL),
	F("r_b_swap", V3D_CL_LS_RB_SWAP, V3DD_BOOL),
	F("height_in_ub_or_stride", V3D_CL_LS_STRIDE, V3DD_UINT),
	F("height", V3D_CL_LS_HEIGHT, V3DD_UINT),
	F("address", V3D_CL_LS_ADDRESS, V3DD_ADDR),
};
static const struct v3dd_field p_load[] = {
	FE("buffer_to_load", V3D_CL_LS_BUFFER, tile_buffers),
	FE("memory_format", V3D_CL_LS_MEMORY_FORMAT, memory_formats),
	F("flip_y", V3D_CL_LS_FLIP_Y, V3DD_BOOL),
	FE("decimate_mode", V3D_CL_LS_DECIMATE_MODE, decimate_modes),
	FE("input_image_format", V3D_CL_LS_IMAGE_FORMAT, image_formats),
	F("force_alpha_1", V3D_CL_LOAD_FORCE_ALPHA_1, V3DD_BOOL),
	F("channel_reverse", V3D_CL_LS_CHANNEL_REVERSE, V3DD_BOOL),
	F("r_b_swap", V3D_CL_LS_RB_SWAP, V3DD_BOOL),
	F("height_in_ub_or_stride", V3D_CL_LS_STRIDE, V3DD_UINT),
	F("height", V3D_CL_LS_HEIGHT, V3DD_UINT),
	F("address", V3D_CL_LS_ADDRESS, V3DD_ADDR),
};
static const struct v3dd_field p_indexed_prim_list[] = {
	FE("mode", V3D_CL_INDEXED_PRIM_MODE, primitives),
	FE("index_type", V3D_CL_INDEXED_PRIM_INDEX_TYPE, index_types),
	F("length", V3D_CL_INDEXED_PRIM_LENGTH, V3DD_UINT),
	F("enable_primitive_restarts", V3D_CL_INDEXED_PRIM_RESTART, V3DD_BOOL),
	F("index_offset", V3D_CL_INDEXED_PRIM_INDEX_OFFSET, V3DD_UINT),
};
static const struct v3dd_field p_indirect_indexed[] = {
	FE("mode", V3D_CL_INDEXED_PRIM_MODE, primitives),
	FE("index_type", V3D_CL_INDEXED_PRIM_INDEX_TYPE, index_types),
	F("number_of_draw_indirect_indexed_records", 8, 31, V3DD_UINT),
	F("enable_primitive_restarts", 39, 1, V3DD_BOOL),
	F("address", V3D_CL_INDIRECT_ADDRESS, V3DD_ADDR),
	F("stride_in_multiples_of_4_bytes", V3D_CL_INDIRECT_STRIDE_WORDS, V3DD_UINT),
};
static const struct v3dd_field p_indexed_instanced[] = {
	FE("mode", V3D_CL_INDEXED_PRIM_MODE, primitives),
	FE("index_type", V3D_CL_INDEXED_PRIM_INDEX_TYPE, index_types),
	F("instance_length", 8, 31, V3DD_UINT),
	F("enable_primitive_restarts", 39, 1, V3DD_BOOL),
	F("number_of_instances", 40, 32, V3DD_UINT),
	F("index_offset", 72, 32, V3DD_UINT),
};
static const struct v3dd_field p_vertex_array_prims[] = {
	FE("mode", V3D_CL_VERTEX_ARRAY_MODE, primitives),
	F("length", V3D_CL_VERTEX_ARRAY_LENGTH, V3DD_UINT),
	F("index_of_first_vertex", V3D_CL_VERTEX_ARRAY_FIRST, V3DD_UINT),
};
static const struct v3dd_field p_indirect_vertex_array[] = {
	FE("mode", V3D_CL_VERTEX_ARRAY_MODE, primitives),
	F("number_of_draw_indirect_array_records", 8, 32, V3DD_UINT),
	F("address", V3D_CL_INDIRECT_ADDRESS, V3DD_ADDR),
	F("stride_in_multiples_of_4_bytes", V3D_CL_INDIRECT_STRIDE_WORDS, V3DD_UINT),
};
static const struct v3dd_field p_vertex_array_instanced[] = {
	FE("mode", V3D_CL_VERTEX_ARRAY_MODE, primitives),
	F("instance_length", 8, 32, V3DD_UINT),
	F("number_of_instances", 40, 32, V3DD_UINT),
	F("index_of_first_vertex", 72, 32, V3DD_UINT),
};
static const struct v3dd_field p_vertex_array_single[] = {
	FE("mode", V3D_CL_VERTEX_ARRAY_MODE, primitives),
	F("instance_length", 8, 32, V3DD_UINT),
	F("instance_id", 40, 32, V3DD_UINT),
	F("index_of_first_vertex", 72, 32, V3DD_UINT),
};
static const struct v3dd_field p_base_vertex[] = {
	F("base_vertex", 0, 32, V3DD_UINT),
	F("base_instance", 32, 32, V3DD_UINT),
};
static const struct v3dd_field p_index_buffer[] = {
	F("address", V3D_CL_INDEX_BUFFER_ADDRESS, V3DD_ADDR),
	F("size", V3D_CL_INDEX_BUFFER_SIZE, V3DD_UINT),
};
static const struct v3dd_field p_instance_id[] = { F("instance_id", 0, 32, V3DD_UINT) };
static const struct v3dd_field p_primitive_id[] = { F("primitive_id", 0, 32, V3DD_UINT) };
static const struct v3dd_field p_prim_list_format[] = {
	FE("primitive_type", 0, 6, prim_list_types),
	F("tri_strip_or_fan", 7, 1, V3DD_BOOL),
};
static const struct v3dd_field p_serial_number[] = {
	FE("block_size", 0, 2, block_sizes),
	F("address", 6, 26, V3DD_ADDR),
};
static const struct v3dd_field p_gl_shader[] = {
	F("number_of_attribute_arrays", V3D_CL_GL_SHADER_NUM_ATTRIBUTES, V3DD_UINT),
	F("address", V3D_CL_GL_SHADER_ADDRESS, V3DD_ADDR),
};
static const struct v3dd_field p_vcm_cache_size[] = {
	F("number_of_16_vertex_batches_for_binning", 0, 4, V3DD_UINT),
	F("number_of_16_vertex_batches_for_rendering", 4, 4, V3DD_UINT),
};
static const struct v3dd_field p_prim_counts[] = {
	FE("op", 0, 4, prim_counts_ops),
	F("read_write_64byte", 4, 1, V3DD_BOOL),
	F("address", 5, 27, V3DD_ADDR),
};
static const struct v3dd_field p_tf_buffer[] = {
	F("buffer_number", 0, 2, V3DD_UINT),
	F("buffer_size_in_32_bit_words", 2, 30, V3DD_UINT),
	F("buffer_address", 32, 32, V3DD_ADDR),
};
static const struct v3dd_field p_tf_specs[] = {
	F("number_of_16_bit_output_data_specs_following", V3D_CL_TF_SPECS_COUNT, V3DD_UINT),
	F("enable", V3D_CL_TF_SPECS_ENABLE, V3DD_BOOL),
};
static const struct v3dd_field p_l1_flush[] = {
	F("instruction_cache_clear", 0, 4, V3DD_UINT),
	F("uniforms_cache_clear", 4, 4, V3DD_UINT),
	F("tmu_data_cache_clear", 8, 4, V3DD_UINT),
	F("tmu_config_cache_clear", 12, 4, V3DD_UINT),
};
static const struct v3dd_field p_l2t_flush[] = {
	F("l2t_flush_start", 0, 32, V3DD_ADDR),
	F("l2t_flush_end", 32, 32, V3DD_ADDR),
	FE("l2t_flush_mode", 64, 4, l2t_flush_modes),
};
static const struct v3dd_field p_stencil_cfg[] = {
	F("stencil_ref_value", 0, 8, V3DD_UINT),
	F("stencil_test_mask", 8, 8, V3DD_HEX),
	FE("stencil_test_function", 16, 3, compare_funcs),
	FE("stencil_test_fail_op", 19, 3, stencil_ops),
	FE("depth_test_fail_op", 22, 3, stencil_ops),
	FE("stencil_pass_op", 25, 3, stencil_ops),
	F("front_config", 28, 1, V3DD_BOOL),
	F("back_config", 29, 1, V3DD_BOOL),
	F("stencil_write_mask", 32, 8, V3DD_HEX),
};
static const struct v3dd_field p_blend_enables[] = { F("mask", 0, 8, V3DD_HEX) };
static const struct v3dd_field p_blend_cfg42[] = {
	FE("alpha_blend_mode", 0, 4, blend_modes),
	FE("alpha_blend_src_factor", 4, 4, blend_factors),
	FE("alpha_blend_dst_factor", 8, 4, blend_factors),
	FE("color_blend_mode", 12, 4, blend_modes),
	FE("color_blend_src_factor", 16, 4, blend_factors),
	FE("color_blend_dst_factor", 20, 4, blend_factors),
	F("render_target_mask", 24, 4, V3DD_HEX),
};
static const struct v3dd_field p_blend_cfg71[] = {
	FE("alpha_blend_mode", 0, 4, blend_modes),
	FE("alpha_blend_src_factor", 4, 4, blend_factors),
	FE("alpha_blend_dst_factor", 8, 4, blend_factors),
	FE("color_blend_mode", 12, 4, blend_modes),
	FE("color_blend_src_factor", 16, 4, blend_factors),
	FE("color_blend_dst_factor", 20, 4, blend_factors),
	F("render_target_mask", 24, 8, V3DD_HEX),
};
static const struct v3dd_field p_blend_constant[] = {
	F("red_f16", 0, 16, V3DD_HEX),
	F("green_f16", 16, 16, V3DD_HEX),
	F("blue_f16", 32, 16, V3DD_HEX),
	F("alpha_f16", 48, 16, V3DD_HEX),
};
static const struct v3dd_field p_color_write_masks[] = { F("mask", 0, 32, V3DD_HEX) };
static const struct v3dd_field p_centroid_flags[] = {
	F("varying_offset_v0", 0, 4, V3DD_UINT),
	FE("action_for_lower_numbered_varyings", 4, 2, varying_actions),
	FE("action_for_higher_numbered_varyings", 6, 2, varying_actions),
	F("flags_for_varyings_v0_24", 8, 24, V3DD_HEX),
};
static const struct v3dd_field p_sample_state[] = {
	F("mask", 0, 4, V3DD_HEX),
	F("coverage", 16, 16, V3DD_F187),
};
static const struct v3dd_field p_occlusion[] = { F("address", 0, 32, V3DD_ADDR) };
static const struct v3dd_field p_depth_bounds[] = {
	F("lower_test_limit", 0, 32, V3DD_FLOAT),
	F("upper_test_limit", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_cfg_bits42[] = {
	F("enable_forward_facing_primitive", 0, 1, V3DD_BOOL),
	F("enable_reverse_facing_primitive", 1, 1, V3DD_BOOL),
	F("clockwise_primitives", 2, 1, V3DD_BOOL),
	F("enable_depth_offset", 3, 1, V3DD_BOOL),
	FE("line_rasterization", 4, 2, line_rasterizations),
	F("rasterizer_oversample_mode", 6, 2, V3DD_UINT),
	F("direct3d_wireframe_triangles_mode", 11, 1, V3DD_BOOL),
	FE("depth_test_function", 12, 3, compare_funcs),
	F("z_updates_enable", 15, 1, V3DD_BOOL),
	F("early_z_enable", 16, 1, V3DD_BOOL),
	F("early_z_updates_enable", 17, 1, V3DD_BOOL),
	F("stencil_enable", 18, 1, V3DD_BOOL),
	F("blend_enable", 19, 1, V3DD_BOOL),
	F("direct3d_point_fill_mode", 20, 1, V3DD_BOOL),
	F("direct3d_provoking_vertex", 21, 1, V3DD_BOOL),
};
static const struct v3dd_field p_cfg_bits71[] = {
	F("enable_forward_facing_primitive", 0, 1, V3DD_BOOL),
	F("enable_reverse_facing_primitive", 1, 1, V3DD_BOOL),
	F("clockwise_primitives", 2, 1, V3DD_BOOL),
	F("enable_depth_offset", 3, 1, V3DD_BOOL),
	FE("line_rasterization", 4, 1, line_rasterizations),
	F("depth_bounds_test_enable", 5, 1, V3DD_BOOL),
	F("rasterizer_oversample_mode", 6, 2, V3DD_UINT),
	F("z_clamp_mode", 10, 1, V3DD_BOOL),
	F("direct3d_wireframe_triangles_mode", 11, 1, V3DD_BOOL),
	FE("depth_test_function", 12, 3, compare_funcs),
	F("z_updates_enable", 15, 1, V3DD_BOOL),
	F("stencil_enable", 18, 1, V3DD_BOOL),
	F("blend_enable", 19, 1, V3DD_BOOL),
	F("direct3d_point_fill_mode", 20, 1, V3DD_BOOL),
	F("direct3d_provoking_vertex", 21, 1, V3DD_BOOL),
	FE("z_clipping_mode", 22, 2, z_clip_modes),
};
static const struct v3dd_field p_point_size[] = { F("point_size", 0, 32, V3DD_FLOAT) };
static const struct v3dd_field p_line_width[] = { F("line_width", 0, 32, V3DD_FLOAT) };
static const struct v3dd_field p_depth_offset[] = {
	F("depth_offset_factor", 0, 16, V3DD_F187),
	F("depth_offset_units", 16, 16, V3DD_F187),
	F("limit", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_clip_window[] = {
	F("left_pixel_coordinate", 0, 16, V3DD_UINT),
	F("bottom_pixel_coordinate", 16, 16, V3DD_UINT),
	F("width_in_pixels", 32, 16, V3DD_UINT),
	F("height_in_pixels", 48, 16, V3DD_UINT),
};
static const struct v3dd_field p_viewport_offset[] = {
	F("fine_x", 0, 22, V3DD_U14_8),
	F("coarse_x", 22, 10, V3DD_INT),
	F("fine_y", 32, 22, V3DD_U14_8),
	F("coarse_y", 54, 10, V3DD_INT),
};
static const struct v3dd_field p_clipper_z_minmax[] = {
	F("minimum_zw", 0, 32, V3DD_FLOAT),
	F("maximum_zw", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_clipper_xy42[] = {
	F("viewport_half_width_in_1_256th_of_pixel", 0, 32, V3DD_FLOAT),
	F("viewport_half_height_in_1_256th_of_pixel", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_clipper_xy71[] = {
	F("viewport_half_width_in_1_64th_of_pixel", 0, 32, V3DD_FLOAT),
	F("viewport_half_height_in_1_64th_of_pixel", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_clipper_z[] = {
	F("viewport_z_scale", 0, 32, V3DD_FLOAT),
	F("viewport_z_offset", 32, 32, V3DD_FLOAT),
};
static const struct v3dd_field p_number_of_layers[] = {
	F("number_of_layers", V3D_CL_NUMBER_OF_LAYERS_FIELD, V3DD_MINUS1) };
static const struct v3dd_field p_tbm42[] = {
	FE("tile_allocation_initial_block_size", V3D_CL_TBM_INITIAL_BLOCK_SIZE, block_sizes),
	FE("tile_allocation_block_size", V3D_CL_TBM_BLOCK_SIZE, block_sizes),
	F("number_of_render_targets", V3D42_CL_TBM_NUMBER_OF_RENDER_TARGETS, V3DD_MINUS1),
	FE("maximum_bpp_of_all_render_targets", V3D42_CL_TBM_MAX_BPP, internal_bpps),
	F("multisample_mode_4x", V3D42_CL_TBM_MULTISAMPLE_4X, V3DD_BOOL),
	F("double_buffer_in_non_ms_mode", V3D42_CL_TBM_DOUBLE_BUFFER, V3DD_BOOL),
	F("width_in_pixels", V3D_CL_TBM_WIDTH, V3DD_MINUS1),
	F("height_in_pixels", V3D_CL_TBM_HEIGHT, V3DD_MINUS1),
};
static const struct v3dd_field p_tbm71[] = {
	FE("tile_allocation_initial_block_size", V3D_CL_TBM_INITIAL_BLOCK_SIZE, block_sizes),
	FE("tile_allocation_block_size", V3D_CL_TBM_BLOCK_SIZE, block_sizes),
	F("log2_tile_width", V3D71_CL_TBM_LOG2_TILE_WIDTH, V3DD_TILE_PX),
	F("log2_tile_height", V3D71_CL_TBM_LOG2_TILE_HEIGHT, V3DD_TILE_PX),
	F("width_in_pixels", V3D_CL_TBM_WIDTH, V3DD_MINUS1),
	F("height_in_pixels", V3D_CL_TBM_HEIGHT, V3DD_MINUS1),
};
/* TILE_RENDERING_MODE_CFG sub-packets (the sub-id itself is part of the name, not a field) */
static const struct v3dd_field p_rmc42_common[] = {
	F("number_of_render_targets", V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS, V3DD_MINUS1),
	F("image_width_pixels", V3D_CL_RMC_IMAGE_WIDTH, V3DD_UINT),
	F("image_height_pixels", V3D_CL_RMC_IMAGE_HEIGHT, V3DD_UINT),
	FE("maximum_bpp_of_all_render_targets", V3D42_CL_RMC_MAX_BPP, internal_bpps),
	F("multisample_mode_4x", V3D_CL_RMC_MULTISAMPLE_4X, V3DD_BOOL),
	F("double_buffer_in_non_ms_mode", V3D_CL_RMC_DOUBLE_BUFFER, V3DD_BOOL),
	FE("early_z_test_and_update_direction", V3D_CL_RMC_EARLY_Z_DIRECTION, early_z_directions),
	F("early_z_disable", V3D_CL_RMC_EARLY_Z_DISABLE, V3DD_BOOL),
	FE("internal_depth_type", V3D_CL_RMC_INTERNAL_DEPTH_TYPE, depth_types),
	F("early_depth_stencil_clear", V3D_CL_RMC_EARLY_DS_CLEAR, V3DD_BOOL),
};
static const struct v3dd_field p_rmc71_common[] = {
	F("number_of_render_targets", V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS, V3DD_MINUS1),
	F("image_width_pixels", V3D_CL_RMC_IMAGE_WIDTH, V3DD_UINT),
	F("image_height_pixels", V3D_CL_RMC_IMAGE_HEIGHT, V3DD_UINT),
	F("multisample_mode_4x", V3D_CL_RMC_MULTISAMPLE_4X, V3DD_BOOL),
	F("double_buffer_in_non_ms_mode", V3D_CL_RMC_DOUBLE_BUFFER, V3DD_BOOL),
	F("depth_buffer_disable", V3D71_CL_RMC_DEPTH_BUFFER_DISABLE, V3DD_BOOL),
	FE("early_z_test_and_update_direction", V3D_CL_RMC_EARLY_Z_DIRECTION, early_z_directions),
	F("early_z_disable", V3D_CL_RMC_EARLY_Z_DISABLE, V3DD_BOOL),
	FE("internal_depth_type", V3D_CL_RMC_INTERNAL_DEPTH_TYPE, depth_types),
	F("early_depth_stencil_clear", V3D_CL_RMC_EARLY_DS_CLEAR, V3DD_BOOL),
	F("log2_tile_width", V3D71_CL_RMC_LOG2_TILE_WIDTH, V3DD_TILE_PX),
	F("log2_tile_height", V3D71_CL_RMC_LOG2_TILE_HEIGHT, V3DD_TILE_PX),
};
#define RT42(n)                                                                   \
	FE("render_target_" #n "_internal_bpp", V3D42_CL_RMC_RT_BPP(n), internal_bpps),  \
	FE("render_target_" #n "_internal_type", V3D42_CL_RMC_RT_TYPE(n), internal_types), \
	FE("render_target_" #n "_clamp", V3D42_CL_RMC_RT_CLAMP(n), rt_clamps)
static const struct v3dd_field p_rmc42_color[] = { RT42(0), RT42(1), RT42(2), RT42(3) };
#undef RT42
static const struct v3dd_field p_rmc_zs_clear[] = {
	F("stencil_clear_value", V3D_CL_RMC_STENCIL_CLEAR, V3DD_UINT),
	F("z_clear_value", V3D_CL_RMC_Z_CLEAR, V3DD_FLOAT),
};
static const struct v3dd_field p_rmc42_clear1[] = {
	F("render_target_number", V3D42_CL_RMC_CLEAR_RT, V3DD_UINT),
	F("clear_color_low_32_bits", V3D42_CL_RMC_CLEAR1_LOW32, V3DD_HEX),
	F("clear_color_next_24_bits", V3D42_CL_RMC_CLEAR1_NEXT24, V3DD_HEX),
};
static const struct v3dd_field p_rmc42_clear2[] = {
	F("render_target_number", V3D42_CL_RMC_CLEAR_RT, V3DD_UINT),
	F("clear_color_mid_low_32_bits", V3D42_CL_RMC_CLEAR2_MIDLOW32, V3DD_HEX),
	F("clear_color_mid_high_24_bits", V3D42_CL_RMC_CLEAR2_MIDHIGH24, V3DD_HEX),
};
static const struct v3dd_field p_rmc42_clear3[] = {
	F("render_target_number", V3D42_CL_RMC_CLEAR_RT, V3DD_UINT),
	F("clear_color_high_16_bits", V3D42_CL_RMC_CLEAR3_HIGH16, V3DD_HEX),
	F("raster_row_stride_or_image_height_in_pixels", V3D42_CL_RMC_CLEAR3_RASTER_STRIDE, V3DD_UINT),
	F("uif_padded_height_in_uif_blocks", V3D42_CL_RMC_CLEAR3_UIF_PADDED_HEIGHT, V3DD_UINT),
};
static const struct v3dd_field p_rmc71_rt1[] = {
	F("render_target_number", V3D71_CL_RMC_RT, V3DD_UINT),
	F("base_address", V3D71_CL_RMC_RT1_BASE_ADDRESS, V3DD_UINT), /* TLB offset, not a GPU address */
	F("stride", V3D71_CL_RMC_RT1_STRIDE, V3DD_MINUS1),
	FE("internal_bpp", V3D71_CL_RMC_RT1_BPP, internal_bpps),
	FE("internal_type_and_clamping", V3D71_CL_RMC_RT1_TYPE_CLAMP, rt_type_clamps),
	F("clear_color_low_bits", V3D71_CL_RMC_RT1_CLEAR_LOW32, V3DD_HEX),
};
static const struct v3dd_field p_rmc71_rt2[] = {
	F("render_target_number", V3D71_CL_RMC_RT, V3DD_UINT),
	F("clear_color_mid_bits", V3D71_CL_RMC_RT2_CLEAR_MID40, V3DD_HEX),
};
static const struct v3dd_field p_rmc71_rt3[] = {
	F("render_target_number", V3D71_CL_RMC_RT, V3DD_UINT),
	F("clear_color_top_bits", V3D71_CL_RMC_RT3_CLEAR_TOP56, V3DD_HEX),
};
static const struct v3dd_field p_supertile_cfg[] = {
	F("supertile_width_in_tiles", V3D_CL_MRS_SUPERTILE_WIDTH, V3DD_MINUS1),
	F("supertile_height_in_tiles", V3D_CL_MRS_SUPERTILE_HEIGHT, V3DD_MINUS1),
	F("total_frame_width_in_supertiles", V3D_CL_MRS_FRAME_WIDTH_SUPERTILES, V3DD_UINT),
	F("total_frame_height_in_supertiles", V3D_CL_MRS_FRAME_HEIGHT_SUPERTILES, V3DD_UINT),
	F("total_frame_width_in_tiles", V3D_CL_MRS_FRAME_WIDTH_TILES, V3DD_UINT),
	F("total_frame_height_in_tiles", V3D_CL_MRS_FRAME_HEIGHT_TILES, V3DD_UINT),
	F("multicore_enable", V3D_CL_MRS_MULTICORE_ENABLE, V3DD_BOOL),
	F("supertile_raster_order", V3D_CL_MRS_SUPERTILE_RASTER_ORDER, V3DD_BOOL),
	F("number_of_bin_tile_lists", V3D_CL_MRS_NUMBER_OF_BIN_TILE_LISTS, V3DD_MINUS1),
};
static const struct v3dd_field p_tile_list_set_base[] = {
	F("tile_list_set_number", V3D_CL_TLSB_SET_NUMBER, V3DD_UINT),
	F("address", V3D_CL_TLSB_ADDRESS, V3DD_ADDR),
};
static const struct v3dd_field p_tile_coords[] = {
	F("tile_column_number", V3D_CL_TILE_COLUMN, V3DD_UINT),
	F("tile_row_number", V3D_CL_TILE_ROW, V3DD_UINT),
};
static const struct v3dd_field p_initial_block_size[] = {
	FE("size_of_first_block_in_chained_tile_lists", V3D_CL_TLIBS_SIZE, block_sizes),
	F("use_auto_chained_tile_lists", V3D_CL_TLIBS_AUTO_CHAINED, V3DD_BOOL),
};

#define L(op, vers, fields) { op, vers, -1, NULL, fields, N(fields) }
#define RMC(vers, sub, sfx, fields) { V3D_CL_TILE_RENDERING_MODE_CFG, vers, sub, sfx, fields, N(fields) }

const struct v3dd_layout v3dd_layouts[] = {
	L(V3D_CL_WAIT_FOR_TRANSFORM_FEEDBACK, V3DD_BOTH, p_wait_tf),
	L(V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST, V3DD_BOTH, p_branch),
	L(V3D_CL_BRANCH, V3DD_BOTH, p_branch),
	L(V3D_CL_BRANCH_TO_SUB_LIST, V3DD_BOTH, p_branch),
	L(V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST, V3DD_BOTH, p_generic_tile_list),
	L(V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST, V3DD_BOTH, p_implicit_tile_list),
	L(V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE, V3DD_BOTH, p_explicit_supertile),
	L(V3D_CL_SUPERTILE_COORDINATES, V3DD_BOTH, p_supertile_coords),
	L(V3D_CL_CLEAR_TILE_BUFFERS, V3DD_VER42, p_clear42),
	L(V3D_CL_STORE_TILE_BUFFER_GENERAL, V3DD_BOTH, p_store),
	L(V3D_CL_LOAD_TILE_BUFFER_GENERAL, V3DD_BOTH, p_load),
	L(V3D_CL_INDEXED_PRIM_LIST, V3DD_BOTH, p_indexed_prim_list),
	L(V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST, V3DD_BOTH, p_indirect_indexed),
	L(V3D_CL_INDEXED_INSTANCED_PRIM_LIST, V3DD_BOTH, p_indexed_instanced),
	L(V3D_CL_VERTEX_ARRAY_PRIMS, V3DD_BOTH, p_vertex_array_prims),
	L(V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS, V3DD_BOTH, p_indirect_vertex_array),
	L(V3D_CL_VERTEX_ARRAY_INSTANCED_PRIMS, V3DD_BOTH, p_vertex_array_instanced),
	L(V3D_CL_VERTEX_ARRAY_SINGLE_INSTANCE_PRIMS, V3DD_BOTH, p_vertex_array_single),
	L(V3D_CL_BASE_VERTEX_BASE_INSTANCE, V3DD_BOTH, p_base_vertex),
	L(V3D_CL_INDEX_BUFFER_SETUP, V3DD_BOTH, p_index_buffer),
	L(V3D_CL_SET_INSTANCEID, V3DD_BOTH, p_instance_id),
	L(V3D_CL_SET_PRIMITIVEID, V3DD_BOTH, p_primitive_id),
	L(V3D_CL_PRIM_LIST_FORMAT, V3DD_BOTH, p_prim_list_format),
	L(V3D_CL_SERIAL_NUMBER_LIST_START, V3DD_BOTH, p_serial_number),
	L(V3D_CL_GL_SHADER_STATE, V3DD_BOTH, p_gl_shader),
	L(V3D_CL_GL_SHADER_STATE_INCLUDING_TS, V3DD_BOTH, p_gl_shader),
	L(V3D_CL_GL_SHADER_STATE_INCLUDING_GS, V3DD_BOTH, p_gl_shader),
	L(V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS, V3DD_BOTH, p_gl_shader),
	L(V3D_CL_VCM_CACHE_SIZE, V3DD_BOTH, p_vcm_cache_size),
	L(V3D_CL_PRIMITIVE_COUNTS_FEEDBACK, V3DD_BOTH, p_prim_counts),
	L(V3D_CL_TRANSFORM_FEEDBACK_BUFFER, V3DD_BOTH, p_tf_buffer),
	L(V3D_CL_TRANSFORM_FEEDBACK_SPECS, V3DD_BOTH, p_tf_specs),
	L(V3D_CL_L1_CACHE_FLUSH_CONTROL, V3DD_BOTH, p_l1_flush),
	L(V3D_CL_L2T_CACHE_FLUSH_CONTROL, V3DD_BOTH, p_l2t_flush),
	L(V3D_CL_STENCIL_CFG, V3DD_BOTH, p_stencil_cfg),
	L(V3D_CL_BLEND_ENABLES, V3DD_BOTH, p_blend_enables),
	L(V3D_CL_BLEND_CFG, V3DD_VER42, p_blend_cfg42),
	L(V3D_CL_BLEND_CFG, V3DD_VER71, p_blend_cfg71),
	L(V3D_CL_BLEND_CONSTANT_COLOR, V3DD_BOTH, p_blend_constant),
	L(V3D_CL_COLOR_WRITE_MASKS, V3DD_BOTH, p_color_write_masks),
	L(V3D_CL_CENTROID_FLAGS, V3DD_BOTH, p_centroid_flags),
	L(V3D_CL_SAMPLE_STATE, V3DD_BOTH, p_sample_state),
	L(V3D_CL_OCCLUSION_QUERY_COUNTER, V3DD_BOTH, p_occlusion),
	L(V3D_CL_DEPTH_BOUNDS_TEST_LIMITS, V3DD_VER71, p_depth_bounds),
	L(V3D_CL_CFG_BITS, V3DD_VER42, p_cfg_bits42),
	L(V3D_CL_CFG_BITS, V3DD_VER71, p_cfg_bits71),
	L(V3D_CL_FLAT_SHADE_FLAGS, V3DD_BOTH, p_centroid_flags),
	L(V3D_CL_NON_PERSPECTIVE_FLAGS, V3DD_BOTH, p_centroid_flags),
	L(V3D_CL_POINT_SIZE, V3DD_BOTH, p_point_size),
	L(V3D_CL_LINE_WIDTH, V3DD_BOTH, p_line_width),
	L(V3D_CL_DEPTH_OFFSET, V3DD_BOTH, p_depth_offset),
	L(V3D_CL_CLIP_WINDOW, V3DD_BOTH, p_clip_window),
	L(V3D_CL_VIEWPORT_OFFSET, V3DD_BOTH, p_viewport_offset),
	L(V3D_CL_CLIPPER_Z_MIN_MAX_CLIPPING_PLANES, V3DD_BOTH, p_clipper_z_minmax),
	L(V3D_CL_CLIPPER_XY_SCALING, V3DD_VER42, p_clipper_xy42),
	L(V3D_CL_CLIPPER_XY_SCALING, V3DD_VER71, p_clipper_xy71),
	L(V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET, V3DD_BOTH, p_clipper_z),
	L(V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET_NO_GUARDBAND, V3DD_VER71, p_clipper_z),
	L(V3D_CL_NUMBER_OF_LAYERS, V3DD_BOTH, p_number_of_layers),
	L(V3D_CL_TILE_BINNING_MODE_CFG, V3DD_VER42, p_tbm42),
	L(V3D_CL_TILE_BINNING_MODE_CFG, V3DD_VER71, p_tbm71),
	RMC(V3DD_VER42, V3D42_RMC_COMMON, "COMMON", p_rmc42_common),
	RMC(V3DD_VER42, V3D42_RMC_COLOR, "COLOR", p_rmc42_color),
	RMC(V3DD_VER42, V3D42_RMC_ZS_CLEAR_VALUES, "ZS_CLEAR_VALUES", p_rmc_zs_clear),
	RMC(V3DD_VER42, V3D42_RMC_CLEAR_COLORS_PART1, "CLEAR_COLORS_PART1", p_rmc42_clear1),
	RMC(V3DD_VER42, V3D42_RMC_CLEAR_COLORS_PART2, "CLEAR_COLORS_PART2", p_rmc42_clear2),
	RMC(V3DD_VER42, V3D42_RMC_CLEAR_COLORS_PART3, "CLEAR_COLORS_PART3", p_rmc42_clear3),
	RMC(V3DD_VER71, V3D71_RMC_COMMON, "COMMON", p_rmc71_common),
	RMC(V3DD_VER71, V3D71_RMC_ZS_CLEAR_VALUES, "ZS_CLEAR_VALUES", p_rmc_zs_clear),
	RMC(V3DD_VER71, V3D71_RMC_RENDER_TARGET_PART1, "RENDER_TARGET_PART1", p_rmc71_rt1),
	RMC(V3DD_VER71, V3D71_RMC_RENDER_TARGET_PART2, "RENDER_TARGET_PART2", p_rmc71_rt2),
	RMC(V3DD_VER71, V3D71_RMC_RENDER_TARGET_PART3, "RENDER_TARGET_PART3", p_rmc71_rt3),
	L(V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG, V3DD_BOTH, p_supertile_cfg),
	L(V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE, V3DD_BOTH, p_tile_list_set_base),
	L(V3D_CL_TILE_COORDINATES, V3DD_BOTH, p_tile_coords),
	L(V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE, V3DD_BOTH, p_initial_block_size),
};
const size_t v3dd_nr_layouts = N(v3dd_layouts);

const struct v3dd_layout *v3dd_find_layout(int ver, uint8_t opcode, int sub_id)
{
	unsigned vmask = ver == V3D_VER_42 ? V3DD_VER42 : ver == V3D_VER_71 ? V3DD_VER71 : 0;
	for (size_t i = 0; i < v3dd_nr_layouts; i++) {
		const struct v3dd_layout *l = &v3dd_layouts[i];
		if (l->opcode != opcode || !(l->vers & vmask))
			continue;
		if (l->sub_id >= 0 && l->sub_id != sub_id)
			continue;
		return l;
	}
	return NULL;
}

/* ---- out-of-line records -------------------------------------------------------------------- */

/* Bits 0..19 (4.2) / 0..20 (7.1) are flags, then VPM segment sizes; the shader code addresses
 * share their word with three flag bits. */
#define GL_FLAGS                                                                         \
	F("point_size_in_shaded_vertex_data", 0, 1, V3DD_BOOL),                          \
	F("enable_clipping", 1, 1, V3DD_BOOL),                                           \
	F("vertex_id_read_by_coordinate_shader", 2, 1, V3DD_BOOL),                       \
	F("instance_id_read_by_coordinate_shader", 3, 1, V3DD_BOOL),                     \
	F("base_instance_id_read_by_coordinate_shader", 4, 1, V3DD_BOOL),                \
	F("vertex_id_read_by_vertex_shader", 5, 1, V3DD_BOOL),                           \
	F("instance_id_read_by_vertex_shader", 6, 1, V3DD_BOOL),                         \
	F("base_instance_id_read_by_vertex_shader", 7, 1, V3DD_BOOL),                    \
	F("fragment_shader_does_z_writes", 8, 1, V3DD_BOOL),                             \
	F("turn_off_early_z_test", 9, 1, V3DD_BOOL)
#define GL_FLAGS_HIGH                                                                    \
	F("fragment_shader_uses_real_pixel_centre_w", 12, 1, V3DD_BOOL),                 \
	F("enable_sample_rate_shading", 13, 1, V3DD_BOOL),                               \
	F("any_shader_reads_hardware_written_primitive_id", 14, 1, V3DD_BOOL),           \
	F("insert_primitive_id_as_first_varying", 15, 1, V3DD_BOOL),                     \
	F("turn_off_scoreboard", 16, 1, V3DD_BOOL),                                      \
	F("do_scoreboard_wait_on_first_thread_switch", 17, 1, V3DD_BOOL),                \
	F("disable_implicit_point_line_varyings", 18, 1, V3DD_BOOL),                     \
	F("no_prim_pack", 19, 1, V3DD_BOOL)
#define GL_VPM                                                                           \
	F("number_of_varyings_in_fragment_shader", 24, 8, V3DD_UINT),                    \
	F("coordinate_shader_output_vpm_segment_size", 32, 4, V3DD_UINT),                \
	F("min_coord_shader_output_segments_in_addition_to_vcm", 36, 4, V3DD_UINT),      \
	F("coordinate_shader_input_vpm_segment_size", 40, 4, V3DD_UINT),                 \
	F("min_coord_shader_input_segments", 44, 4, V3DD_MINUS1),                        \
	F("vertex_shader_output_vpm_segment_size", 48, 4, V3DD_UINT),                    \
	F("min_vertex_shader_output_segments_in_addition_to_vcm", 52, 4, V3DD_UINT),     \
	F("vertex_shader_input_vpm_segment_size", 56, 4, V3DD_UINT),                     \
	F("min_vertex_shader_input_segments", 60, 4, V3DD_MINUS1)
#define SHADER(prefix, at)                                                               \
	F(prefix "_4_way_threadable", (at), 1, V3DD_BOOL),                               \
	F(prefix "_start_in_final_thread_section", (at) + 1, 1, V3DD_BOOL),              \
	F(prefix "_propagate_nans", (at) + 2, 1, V3DD_BOOL),                             \
	F(prefix "_code_address", (at) + 3, 29, V3DD_ADDR),                              \
	F(prefix "_uniforms_address", (at) + 32, 32, V3DD_ADDR)

static const struct v3dd_field r_gl42[] = {
	GL_FLAGS,
	F("coordinate_shader_has_separate_input_and_output_vpm_blocks", 10, 1, V3DD_BOOL),
	F("vertex_shader_has_separate_input_and_output_vpm_blocks", 11, 1, V3DD_BOOL),
	GL_FLAGS_HIGH,
	GL_VPM,
	F("address_of_default_attribute_values", 64, 32, V3DD_ADDR),
	SHADER("fragment_shader", 96),
	SHADER("vertex_shader", 160),
	SHADER("coordinate_shader", 224),
};
static const struct v3dd_field r_gl71[] = {
	GL_FLAGS,
	GL_FLAGS_HIGH,
	F("never_defer_fep_depth_writes", 20, 1, V3DD_BOOL),
	GL_VPM,
	SHADER("fragment_shader", 64),
	SHADER("vertex_shader", 128),
	SHADER("coordinate_shader", 192),
};
static const struct v3dd_field r_attribute[] = {
	F("address", 0, 32, V3DD_ADDR),
	F("vec_size", 32, 2, V3DD_UINT),
	FE("type", 34, 3, attribute_types),
	F("signed_int_type", 37, 1, V3DD_BOOL),
	F("normalized_int_type", 38, 1, V3DD_BOOL),
	F("read_as_int_uint", 39, 1, V3DD_BOOL),
	F("number_of_values_read_by_coordinate_shader", 40, 4, V3DD_UINT),
	F("number_of_values_read_by_vertex_shader", 44, 4, V3DD_UINT),
	F("instance_divisor", 48, 16, V3DD_UINT),
	F("stride", 64, 32, V3DD_UINT),
	F("maximum_index", 96, 32, V3DD_UINT),
};
static const struct v3dd_field r_geometry[] = {
	SHADER("geometry_bin_mode_shader", 0),
	SHADER("geometry_render_mode_shader", 64),
};
static const struct v3dd_field r_tg_common[] = {
	FE("tessellation_type", 1, 2, tess_types),
	F("tessellation_point_mode", 3, 1, V3DD_BOOL),
	FE("tessellation_edge_spacing", 4, 2, tess_spacings),
	F("tessellation_clockwise", 6, 1, V3DD_BOOL),
	F("tessellation_invocations", 12, 5, V3DD_UINT),
	FE("geometry_shader_output_format", 17, 2, gs_output_formats),
	F("geometry_shader_instances", 19, 5, V3DD_UINT),
};
static const struct v3dd_field r_tg_params[] = {
	FE("tcs_batch_flush_mode", 0, 2, tcs_flush_modes),
	F("per_patch_data_column_depth", 2, 4, V3DD_UINT),
	F("tcs_output_segment_size_in_sectors", 8, 6, V3DD_UINT),
	FE("tcs_output_segment_pack_mode", 14, 2, pack_modes),
	F("tes_output_segment_size_in_sectors", 16, 6, V3DD_UINT),
	FE("tes_output_segment_pack_mode", 22, 2, pack_modes),
	F("gs_output_segment_size_in_sectors", 24, 6, V3DD_UINT),
	FE("gs_output_segment_pack_mode", 30, 2, pack_modes),
	F("tbg_max_patches_per_tcs_batch", 32, 4, V3DD_MINUS1),
	F("tbg_max_extra_vertex_segs_for_patches_after_first", 36, 2, V3DD_UINT),
	F("tbg_min_tcs_output_segments_required_in_play", 38, 2, V3DD_MINUS1),
	F("tbg_min_per_patch_data_segments_required_in_play", 40, 3, V3DD_MINUS1),
	F("tpg_max_patches_per_tes_batch", 45, 4, V3DD_MINUS1),
	F("tpg_max_vertex_segments_per_tes_batch", 49, 2, V3DD_UINT),
	F("tpg_max_tcs_output_segments_per_tes_batch", 51, 3, V3DD_MINUS1),
	F("tpg_min_tes_output_segments_required_in_play", 54, 3, V3DD_MINUS1),
	F("gbg_max_tes_output_vertex_segments_per_gs_batch", 57, 2, V3DD_UINT),
	F("gbg_min_gs_output_segments_required_in_play", 59, 3, V3DD_MINUS1),
};
static const struct v3dd_field r_tf_spec[] = {
	F("first_shaded_vertex_value_to_output", 0, 8, V3DD_UINT),
	F("number_of_consecutive_vertex_values", 8, 4, V3DD_MINUS1),
	F("output_buffer_to_write_to", 12, 2, V3DD_UINT),
	F("stream_number", 14, 2, V3DD_UINT),
};

const struct v3dd_field *v3dd_record_fields(int ver, enum v3dd_record r, size_t *nr, uint32_t *size,
					    const char **name)
{
	*nr = 0;
	*size = 0;
	*name = "?";
	if (!v3d_ver_valid(ver))
		return NULL;
	switch (r) {
	case V3DD_REC_GL_SHADER:
		*name = "GL_SHADER_STATE_RECORD";
		*size = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		*nr = ver == V3D_VER_42 ? N(r_gl42) : N(r_gl71);
		return ver == V3D_VER_42 ? r_gl42 : r_gl71;
	case V3DD_REC_ATTRIBUTE:
		*name = "GL_SHADER_STATE_ATTRIBUTE_RECORD";
		*size = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD);
		*nr = N(r_attribute);
		return r_attribute;
	case V3DD_REC_GEOMETRY:
		*name = "GEOMETRY_SHADER_STATE_RECORD";
		*size = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD);
		*nr = N(r_geometry);
		return r_geometry;
	case V3DD_REC_TG_COMMON:
		*name = "TESSELLATION_GEOMETRY_COMMON_PARAMS";
		*size = 4;
		*nr = N(r_tg_common);
		return r_tg_common;
	case V3DD_REC_TG_PARAMS:
		*name = "TESSELLATION_GEOMETRY_SHADER_PARAMS";
		*size = 8;
		*nr = N(r_tg_params);
		return r_tg_params;
	case V3DD_REC_TF_SPEC:
		*name = "TRANSFORM_FEEDBACK_OUTPUT_DATA_SPEC";
		*size = 2;
		*nr = N(r_tf_spec);
		return r_tf_spec;
	case V3DD_REC_COUNT:
		break;
	}
	return NULL;
}
