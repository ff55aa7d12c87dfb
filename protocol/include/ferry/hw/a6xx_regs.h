/* Adreno a6xx register offsets (in dwords, as PKT4 and CP_REG_TO_MEM address them) that ferry's
 * CP model, validator and decoders use. Every offset was checked against Mesa's
 * src/freedreno/registers/adreno/a6xx.xml; registers that could not be confirmed are left out. */
#ifndef FERRY_HW_A6XX_REGS_H
#define FERRY_HW_A6XX_REGS_H

#include <stddef.h>
#include <stdint.h>

#define REG_A6XX_RBBM_INT_0_STATUS      0x0201
#define REG_A6XX_RBBM_STATUS            0x0210

#define REG_A6XX_CP_RB_BASE             0x0800 /* 64-bit: lo, hi */
#define REG_A6XX_CP_RB_BASE_HI          0x0801
#define REG_A6XX_CP_RB_CNTL             0x0802
#define REG_A6XX_CP_RB_RPTR_ADDR        0x0804 /* 64-bit */
#define REG_A6XX_CP_RB_RPTR_ADDR_HI     0x0805
#define REG_A6XX_CP_RB_RPTR             0x0806
#define REG_A6XX_CP_RB_WPTR             0x0807
#define REG_A6XX_CP_SQE_CNTL            0x0808

#define REG_A6XX_CP_HW_FAULT            0x0821
#define REG_A6XX_CP_INTERRUPT_STATUS    0x0823
#define REG_A6XX_CP_PROTECT_STATUS      0x0824
#define REG_A6XX_CP_STATUS_1            0x0825
#define REG_A6XX_CP_SQE_INSTR_BASE      0x0830 /* 64-bit */
#define REG_A6XX_CP_SQE_INSTR_BASE_HI   0x0831
#define REG_A6XX_CP_MISC_CNTL           0x0840
#define REG_A6XX_CP_CHICKEN_DBG         0x0841
#define REG_A6XX_CP_ADDR_MODE_CNTL      0x0842
#define REG_A6XX_CP_DBG_ECO_CNTL        0x0843
#define REG_A6XX_CP_APRIV_CNTL          0x0844

#define REG_A6XX_CP_PROTECT_CNTL        0x084f
#define REG_A6XX_CP_PROTECT_BASE        0x0850 /* CP_PROTECT[32] */
#define A6XX_CP_PROTECT_COUNT           32
#define REG_A6XX_CP_PROTECT(n)          (REG_A6XX_CP_PROTECT_BASE + (n))

#define REG_A6XX_CP_SCRATCH_BASE        0x0883 /* CP_SCRATCH[8] */
#define A6XX_CP_SCRATCH_COUNT           8
#define REG_A6XX_CP_SCRATCH_REG(n)      (REG_A6XX_CP_SCRATCH_BASE + (n))

#define REG_A6XX_CP_CONTEXT_SWITCH_CNTL 0x08a0

#define REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE    0x0900 /* 64-bit */
#define REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE_HI 0x0901
#define REG_A6XX_CP_CRASH_DUMP_CNTL     0x0902
#define REG_A6XX_CP_CRASH_DUMP_STATUS   0x0903

#define REG_A6XX_CP_SQE_STAT_ADDR       0x0908
#define REG_A6XX_CP_SQE_STAT_DATA       0x0909
#define REG_A6XX_CP_DRAW_STATE_ADDR     0x090a
#define REG_A6XX_CP_DRAW_STATE_DATA     0x090b

#define REG_A6XX_CP_IB1_BASE            0x0928 /* 64-bit */
#define REG_A6XX_CP_IB1_BASE_HI         0x0929
#define REG_A6XX_CP_IB1_REM_SIZE        0x092a
#define REG_A6XX_CP_IB2_BASE            0x092b /* 64-bit */
#define REG_A6XX_CP_IB2_BASE_HI         0x092c
#define REG_A6XX_CP_IB2_REM_SIZE        0x092d
#define REG_A6XX_CP_SDS_BASE            0x092e /* 64-bit; SDS: CP_SET_DRAW_STATE */
#define REG_A6XX_CP_SDS_BASE_HI         0x092f
#define REG_A6XX_CP_SDS_REM_SIZE        0x0930
#define REG_A6XX_CP_MRB_BASE            0x0931 /* 64-bit */
#define REG_A6XX_CP_MRB_BASE_HI         0x0932
#define REG_A6XX_CP_MRB_REM_SIZE        0x0933
#define REG_A6XX_CP_IB1_INIT_SIZE       0x0943
#define REG_A6XX_CP_IB2_INIT_SIZE       0x0944

#define REG_A6XX_CP_ALWAYS_ON_COUNTER    0x0980 /* 64-bit, 19.2 MHz */
#define REG_A6XX_CP_ALWAYS_ON_COUNTER_HI 0x0981
#define REG_A6XX_CP_ALWAYS_ON_CONTEXT    0x0982 /* 64-bit */
#define REG_A6XX_CP_ALWAYS_ON_CONTEXT_HI 0x0983
#define REG_A6XX_CP_AHB_CNTL            0x098d

/* The visibility stream compressor (VSC): the hardware binning pass's configuration and results
 * (a6xx.xml, Mesa 22.3 names; Turnip's update_vsc_pipe / emit_vsc_overflow_test, freedreno's
 * fd6_gmem.c). Between CP_SET_MODE 1 and CP_SET_MODE 0 the binner writes, per pipe, the primitive
 * and draw streams at ADDRESS + pipe x PITCH (up to LIMIT) and their sizes, both to memory
 * (DRAW_STRM_SIZE_ADDRESS + 4 x pipe) and to the per-pipe result registers below, which the
 * drivers read back right after the pass to detect a stream overflow. Not write-protected: a
 * guest can also write them with PKT4. */
#define REG_A6XX_VSC_BIN_SIZE                  0x0c02 /* BINW bits 0..7 (>> 5), BINH 8..16 (>> 4) */
#define REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS    0x0c03 /* 64-bit: GPU-written, 4 bytes per pipe */
#define REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS_HI 0x0c04
#define REG_A6XX_VSC_BIN_COUNT                 0x0c06 /* NX bits 1..10, NY 11..20 */
#define REG_A6XX_VSC_PIPE_CONFIG_REG(i)        (0x0c10 + (i)) /* 32: X, Y, W, H of the pipe's bins */
#define REG_A6XX_VSC_PRIM_STRM_ADDRESS         0x0c30 /* 64-bit: GPU-written */
#define REG_A6XX_VSC_PRIM_STRM_ADDRESS_HI      0x0c31
#define REG_A6XX_VSC_PRIM_STRM_PITCH           0x0c32 /* bytes per pipe */
#define REG_A6XX_VSC_PRIM_STRM_LIMIT           0x0c33
#define REG_A6XX_VSC_DRAW_STRM_ADDRESS         0x0c34 /* 64-bit: GPU-written */
#define REG_A6XX_VSC_DRAW_STRM_ADDRESS_HI      0x0c35
#define REG_A6XX_VSC_DRAW_STRM_PITCH           0x0c36
#define REG_A6XX_VSC_DRAW_STRM_LIMIT           0x0c37
#define REG_A6XX_VSC_STATE_REG(i)              (0x0c38 + (i)) /* 32, GPU-written: bins with geometry */
#define REG_A6XX_VSC_PRIM_STRM_SIZE_REG(i)     (0x0c58 + (i)) /* 32, GPU-written */
#define REG_A6XX_VSC_DRAW_STRM_SIZE_REG(i)     (0x0c78 + (i)) /* 32, GPU-written */
#define A6XX_VSC_PIPES                         32u

/* CP_PROTECT_CNTL bits. */
#define A6XX_CP_PROTECT_CNTL_ACCESS_PROT_EN         (1u << 0)
#define A6XX_CP_PROTECT_CNTL_ACCESS_FAULT_ON_VIOL_EN (1u << 1)
#define A6XX_CP_PROTECT_CNTL_LAST_SPAN_INF_RANGE    (1u << 3)

/* The 2D engine (BLIT_OP_SCALE), as Turnip's r2d_* ops and freedreno's fd6_blitter program it.
 * Offsets and fields from a6xx.xml (Mesa 22.3 names; later a6xx.xml calls them RB_A2D_* /
 * GRAS_A2D_* / SP_A2D_* / TPL1_A2D_* at the same offsets). */
#define REG_A6XX_GRAS_2D_BLIT_CNTL      0x8400 /* a6xx_2d_blit_cntl, as RB_2D_BLIT_CNTL */
#define REG_A6XX_GRAS_2D_SRC_TL_X       0x8401 /* signed, bits 8..24 */
#define REG_A6XX_GRAS_2D_SRC_BR_X       0x8402 /* inclusive */
#define REG_A6XX_GRAS_2D_SRC_TL_Y       0x8403
#define REG_A6XX_GRAS_2D_SRC_BR_Y       0x8404 /* inclusive */
#define REG_A6XX_GRAS_2D_DST_TL         0x8405 /* a6xx_reg_xy */
#define REG_A6XX_GRAS_2D_DST_BR         0x8406 /* a6xx_reg_xy, inclusive */
#define REG_A6XX_RB_2D_BLIT_CNTL        0x8c00 /* a6xx_2d_blit_cntl */
#define REG_A6XX_RB_2D_UNKNOWN_8C01     0x8c01 /* channels to preserve (D24S8 partial clears) */
/* The two RB_2D_UNKNOWN_8C01 values Turnip (r2d_setup_common) writes for a D24S8 destination:
 * clearing depth only keeps the stencil byte; clearing stencil only keeps the depth bytes. */
#define A6XX_RB_2D_UNKNOWN_8C01_KEEP_STENCIL 0x08000041u
#define A6XX_RB_2D_UNKNOWN_8C01_KEEP_DEPTH   0x00084001u
#define REG_A6XX_RB_2D_DST_INFO         0x8c17 /* a6xx_2d_surf_info */
#define REG_A6XX_RB_2D_DST              0x8c18 /* 64-bit, 64-byte aligned */
#define REG_A6XX_RB_2D_DST_HI           0x8c19
#define REG_A6XX_RB_2D_DST_PITCH        0x8c1a /* bits 0..15: bytes >> 6 */
#define REG_A6XX_RB_2D_DST_FLAGS        0x8c20 /* 64-bit: UBWC flag buffer */
#define REG_A6XX_RB_2D_DST_FLAGS_HI     0x8c21
#define REG_A6XX_RB_2D_DST_FLAGS_PITCH  0x8c22
#define REG_A6XX_RB_2D_SRC_SOLID_C0     0x8c2c /* clear value, one register per channel */
#define REG_A6XX_RB_2D_SRC_SOLID_C1     0x8c2d
#define REG_A6XX_RB_2D_SRC_SOLID_C2     0x8c2e
#define REG_A6XX_RB_2D_SRC_SOLID_C3     0x8c2f
#define REG_A6XX_RB_DBG_ECO_CNTL        0x8e04 /* "RB_UNKNOWN_8E04" in older a6xx.xml */
#define REG_A6XX_RB_CCU_CNTL            0x8e07 /* CCU layout: Turnip switches it to sysmem before blits */
#define REG_A6XX_SP_2D_DST_FORMAT       0xacc0 /* "SP_2D_SRC_FORMAT" in older a6xx.xml */
#define REG_A6XX_SP_PS_2D_SRC_INFO      0xb4c0 /* a6xx_2d_surf_info */
#define REG_A6XX_SP_PS_2D_SRC_SIZE      0xb4c1
#define REG_A6XX_SP_PS_2D_SRC           0xb4c2 /* 64-bit */
#define REG_A6XX_SP_PS_2D_SRC_HI        0xb4c3
#define REG_A6XX_SP_PS_2D_SRC_PITCH     0xb4c4 /* bits 9..24: bytes >> 6 */
#define REG_A6XX_SP_PS_2D_SRC_FLAGS     0xb4ca /* 64-bit: UBWC flag buffer */
#define REG_A6XX_SP_PS_2D_SRC_FLAGS_HI  0xb4cb
#define REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH 0xb4cc

/* GMEM clears, loads and resolves: CP_EVENT_WRITE(BLIT) takes everything from these (a6xx.xml,
 * Mesa 22.3 names; Turnip's tu_emit_blit / clear_gmem_attachment and tu6_emit_tile_select,
 * freedreno's fd6_gmem.c program them). */
#define REG_A6XX_RB_WINDOW_OFFSET       0x8890 /* a6xx_reg_xy: the bin's origin */
#define REG_A6XX_RB_UNKNOWN_88D0        0x88d0
#define REG_A6XX_RB_BLIT_SCISSOR_TL     0x88d1 /* a6xx_reg_xy */
#define REG_A6XX_RB_BLIT_SCISSOR_BR     0x88d2 /* a6xx_reg_xy, inclusive */
#define REG_A6XX_RB_BIN_CONTROL2        0x88d3 /* BINW bits 0..5 (>> 5), BINH bits 8..14 (>> 4) */
#define REG_A6XX_RB_WINDOW_OFFSET2      0x88d4 /* a6xx_reg_xy: the bin's origin, for blits */
#define REG_A6XX_RB_MSAA_CNTL           0x88d5 /* SAMPLES bits 3..4 ("RB_BLIT_GMEM_MSAA_CNTL" later) */
#define REG_A6XX_RB_BLIT_BASE_GMEM      0x88d6 /* GMEM byte offset, bits 12..31 */
#define REG_A6XX_RB_BLIT_DST_INFO       0x88d7
#define REG_A6XX_RB_BLIT_DST            0x88d8 /* 64-bit */
#define REG_A6XX_RB_BLIT_DST_HI         0x88d9
#define REG_A6XX_RB_BLIT_DST_PITCH      0x88da /* bits 0..15: bytes >> 6 */
#define REG_A6XX_RB_BLIT_DST_ARRAY_PITCH 0x88db
#define REG_A6XX_RB_BLIT_FLAG_DST       0x88dc /* 64-bit */
#define REG_A6XX_RB_BLIT_FLAG_DST_HI    0x88dd
#define REG_A6XX_RB_BLIT_FLAG_DST_PITCH 0x88de /* a6xx_flag_buffer_pitch */
#define REG_A6XX_RB_BLIT_CLEAR_COLOR_DW0 0x88df /* the clear texel as the GMEM format packs it */
#define REG_A6XX_RB_BLIT_CLEAR_COLOR_DW1 0x88e0
#define REG_A6XX_RB_BLIT_CLEAR_COLOR_DW2 0x88e1
#define REG_A6XX_RB_BLIT_CLEAR_COLOR_DW3 0x88e2
#define REG_A6XX_RB_BLIT_INFO           0x88e3

#define A6XX_RB_BIN_CONTROL2_GET_BINW(dw)     (((dw) & 0x3fu) << 5)
#define A6XX_RB_BIN_CONTROL2_GET_BINH(dw)     ((((dw) >> 8) & 0x7fu) << 4)
#define A6XX_RB_BIN_CONTROL2(w, h)            ((((w) >> 5) & 0x3fu) | (((h) >> 4) & 0x7fu) << 8)
#define A6XX_RB_MSAA_CNTL_SAMPLES(x)          (((x) & 0x3u) << 3)
#define A6XX_RB_MSAA_CNTL_GET_SAMPLES(dw)     (((dw) >> 3) & 0x3u)
#define A6XX_RB_BLIT_BASE_GMEM_GET(dw)        ((dw) & 0xfffff000u)
#define A6XX_RB_BLIT_DST_PITCH_PITCH(bytes)   (((bytes) >> 6) & 0xffffu)
#define A6XX_RB_BLIT_DST_PITCH_GET_PITCH(dw)  (((dw) & 0xffffu) << 6)
/* RB_BLIT_DST_INFO. */
#define A6XX_RB_BLIT_DST_INFO_TILE_MODE(x)    ((x) & 0x3u)
#define A6XX_RB_BLIT_DST_INFO_GET_TILE_MODE(dw) ((dw) & 0x3u)
#define A6XX_RB_BLIT_DST_INFO_FLAGS           (1u << 2)
#define A6XX_RB_BLIT_DST_INFO_GET_SAMPLES(dw) (((dw) >> 3) & 0x3u)
#define A6XX_RB_BLIT_DST_INFO_COLOR_SWAP(x)   (((x) & 0x3u) << 5)
#define A6XX_RB_BLIT_DST_INFO_GET_COLOR_SWAP(dw) (((dw) >> 5) & 0x3u)
#define A6XX_RB_BLIT_DST_INFO_COLOR_FORMAT(x) (((x) & 0xffu) << 7)
#define A6XX_RB_BLIT_DST_INFO_GET_COLOR_FORMAT(dw) (((dw) >> 7) & 0xffu)
/* RB_BLIT_INFO: TYPE is Mesa 22.3's UNK0 (bit 0) and GMEM (bit 1) bits; later a6xx.xml names the
 * pair a6xx_blit_event_type. */
#define A6XX_RB_BLIT_INFO_TYPE(x)             ((x) & 0x3u)
#define A6XX_RB_BLIT_INFO_GET_TYPE(dw)        ((dw) & 0x3u)
#define A6XX_RB_BLIT_INFO_UNK0                (1u << 0)
#define A6XX_RB_BLIT_INFO_GMEM                (1u << 1)
#define A6XX_RB_BLIT_INFO_SAMPLE_0            (1u << 2)
#define A6XX_RB_BLIT_INFO_DEPTH               (1u << 3)
#define A6XX_RB_BLIT_INFO_CLEAR_MASK(x)       (((x) & 0xfu) << 4)
#define A6XX_RB_BLIT_INFO_GET_CLEAR_MASK(dw)  (((dw) >> 4) & 0xfu)
enum a6xx_blit_event_type { BLIT_EVENT_STORE = 0, BLIT_EVENT_STORE_AND_CLEAR = 1, BLIT_EVENT_CLEAR = 2,
			    BLIT_EVENT_LOAD = 3 };

/* a6xx_2d_blit_cntl (RB_2D_BLIT_CNTL and GRAS_2D_BLIT_CNTL). */
#define A6XX_2D_BLIT_CNTL_ROTATE(x)           ((x) & 0x7u) /* enum a6xx_rotation */
#define A6XX_2D_BLIT_CNTL_GET_ROTATE(dw)      ((dw) & 0x7u)
#define A6XX_2D_BLIT_CNTL_SOLID_COLOR         (1u << 7)
#define A6XX_2D_BLIT_CNTL_COLOR_FORMAT(x)     (((x) & 0xffu) << 8) /* enum a6xx_format */
#define A6XX_2D_BLIT_CNTL_GET_COLOR_FORMAT(dw) (((dw) >> 8) & 0xffu)
#define A6XX_2D_BLIT_CNTL_SCISSOR             (1u << 16)
#define A6XX_2D_BLIT_CNTL_D24S8               (1u << 19)
#define A6XX_2D_BLIT_CNTL_MASK(x)             (((x) & 0xfu) << 20)
#define A6XX_2D_BLIT_CNTL_GET_MASK(dw)        (((dw) >> 20) & 0xfu)
#define A6XX_2D_BLIT_CNTL_IFMT(x)             (((x) & 0x1fu) << 24) /* enum a6xx_2d_ifmt */
#define A6XX_2D_BLIT_CNTL_GET_IFMT(dw)        (((dw) >> 24) & 0x1fu)

/* a6xx_2d_surf_info (RB_2D_DST_INFO, SP_PS_2D_SRC_INFO; bits 16 and up are the source's only). */
#define A6XX_2D_SURF_INFO_COLOR_FORMAT(x)     ((x) & 0xffu)
#define A6XX_2D_SURF_INFO_GET_COLOR_FORMAT(dw) ((dw) & 0xffu)
#define A6XX_2D_SURF_INFO_TILE_MODE(x)        (((x) & 0x3u) << 8) /* enum a6xx_tile_mode */
#define A6XX_2D_SURF_INFO_GET_TILE_MODE(dw)   (((dw) >> 8) & 0x3u)
#define A6XX_2D_SURF_INFO_COLOR_SWAP(x)       (((x) & 0x3u) << 10) /* enum a3xx_color_swap */
#define A6XX_2D_SURF_INFO_GET_COLOR_SWAP(dw)  (((dw) >> 10) & 0x3u)
#define A6XX_2D_SURF_INFO_FLAGS               (1u << 12) /* UBWC */
#define A6XX_2D_SURF_INFO_SRGB                (1u << 13)
#define A6XX_2D_SURF_INFO_SAMPLES(x)          (((x) & 0x3u) << 14) /* enum a3xx_msaa_samples */
#define A6XX_2D_SURF_INFO_GET_SAMPLES(dw)     (((dw) >> 14) & 0x3u)
#define A6XX_2D_SURF_INFO_FILTER              (1u << 16)
#define A6XX_2D_SURF_INFO_SAMPLES_AVERAGE     (1u << 18)
#define A6XX_2D_SURF_INFO_UNK20               (1u << 20) /* Turnip sets UNK20 and UNK22 on buffer */
#define A6XX_2D_SURF_INFO_UNK22               (1u << 22) /* sources */

/* SP_2D_DST_FORMAT. */
#define A6XX_SP_2D_DST_FORMAT_NORM            (1u << 0)
#define A6XX_SP_2D_DST_FORMAT_SINT            (1u << 1)
#define A6XX_SP_2D_DST_FORMAT_UINT            (1u << 2)
#define A6XX_SP_2D_DST_FORMAT_COLOR_FORMAT(x) (((x) & 0xffu) << 3)
#define A6XX_SP_2D_DST_FORMAT_SRGB            (1u << 11)
#define A6XX_SP_2D_DST_FORMAT_MASK(x)         (((x) & 0xfu) << 12)

/* SP_PS_2D_SRC_SIZE. */
#define A6XX_SP_PS_2D_SRC_SIZE_WIDTH(x)       ((x) & 0x7fffu)
#define A6XX_SP_PS_2D_SRC_SIZE_GET_WIDTH(dw)  ((dw) & 0x7fffu)
#define A6XX_SP_PS_2D_SRC_SIZE_HEIGHT(x)      (((x) & 0x7fffu) << 15)
#define A6XX_SP_PS_2D_SRC_SIZE_GET_HEIGHT(dw) (((dw) >> 15) & 0x7fffu)
/* Pitches in bytes (multiples of 64). */
#define A6XX_SP_PS_2D_SRC_PITCH_PITCH(bytes)  ((((bytes) >> 6) & 0xffffu) << 9)
#define A6XX_SP_PS_2D_SRC_PITCH_GET_PITCH(dw) ((((dw) >> 9) & 0xffffu) << 6)
#define A6XX_RB_2D_DST_PITCH_PITCH(bytes)     (((bytes) >> 6) & 0xffffu)
#define A6XX_RB_2D_DST_PITCH_GET_PITCH(dw)    (((dw) & 0xffffu) << 6)
/* GRAS_2D_SRC_TL_X/BR_X/TL_Y/BR_Y: a signed 17-bit coordinate in bits 8..24 (the low 8 bits are
 * valid too, "probably fixed point"; Turnip and freedreno leave them 0). */
#define A6XX_GRAS_2D_SRC_COORD(x)             (((uint32_t)(x) & 0x1ffffu) << 8)
static inline int32_t a6xx_gras_2d_src_coord_get(uint32_t dw)
{
	uint32_t v = (dw >> 8) & 0x1ffffu;
	return (int32_t)(v ^ 0x10000u) - 0x10000; /* sign-extend 17 bits */
}
/* a6xx_flag_buffer_pitch (RB_2D_DST_FLAGS_PITCH, SP_PS_2D_SRC_FLAGS_PITCH, RB_BLIT_FLAG_DST_PITCH):
 * PITCH in bits 0..10 (bytes >> 6), ARRAY_PITCH in bits 11..27 (bytes >> 7). */
#define A6XX_FLAG_BUFFER_PITCH_PITCH(bytes)       (((bytes) >> 6) & 0x7ffu)
#define A6XX_FLAG_BUFFER_PITCH_GET_PITCH(dw)      (((dw) & 0x7ffu) << 6)
#define A6XX_FLAG_BUFFER_PITCH_ARRAY_PITCH(bytes) ((((bytes) >> 7) & 0x1ffffu) << 11)
/* a6xx_reg_xy (GRAS_2D_DST_TL / _BR): 14-bit X and Y. */
#define A6XX_REG_XY(x, y)                     (((x) & 0x3fffu) | ((uint32_t)((y) & 0x3fffu) << 16))
#define A6XX_REG_XY_GET_X(dw)                 ((dw) & 0x3fffu)
#define A6XX_REG_XY_GET_Y(dw)                 (((dw) >> 16) & 0x3fffu)

enum a6xx_rotation { ROTATE_0 = 0, ROTATE_90 = 1, ROTATE_180 = 2, ROTATE_270 = 3, ROTATE_HFLIP = 4,
		     ROTATE_VFLIP = 5 };
enum a6xx_tile_mode { TILE6_LINEAR = 0, TILE6_2 = 2, TILE6_3 = 3 };
/* adreno_common.xml. WZYX is memory order R, G, B, A; WXYZ is B, G, R, A. */
enum a3xx_color_swap { WZYX = 0, WXYZ = 1, ZYXW = 2, XYZW = 3 };
enum a3xx_msaa_samples { MSAA_ONE = 0, MSAA_TWO = 1, MSAA_FOUR = 2, MSAA_EIGHT = 3 };
/* The 2D engine's intermediate format. Mesa 22.3's values: later a6xx.xml renumbers R2D_UNORM8
 * to 0 (with R2D_SNORM8 = 2 and no R2D_RAW); the hardware field is the same. */
enum a6xx_2d_ifmt {
	R2D_RAW = 0x0,
	R2D_UNORM8_SRGB = 0x1,
	R2D_FLOAT16 = 0x3,
	R2D_FLOAT32 = 0x4,
	R2D_INT8 = 0x5,
	R2D_INT16 = 0x6,
	R2D_INT32 = 0x7,
	R2D_UNORM8 = 0x10,
};

/* a6xx_format: the color formats of the 2D engine and the render targets. */
enum a6xx_format {
	FMT6_A8_UNORM = 0x02,
	FMT6_8_UNORM = 0x03,
	FMT6_8_SNORM = 0x04,
	FMT6_8_UINT = 0x05,
	FMT6_8_SINT = 0x06,
	FMT6_4_4_4_4_UNORM = 0x08,
	FMT6_5_5_5_1_UNORM = 0x0a,
	FMT6_1_5_5_5_UNORM = 0x0c,
	FMT6_5_6_5_UNORM = 0x0e,
	FMT6_8_8_UNORM = 0x0f,
	FMT6_8_8_SNORM = 0x10,
	FMT6_8_8_UINT = 0x11,
	FMT6_8_8_SINT = 0x12,
	FMT6_L8_A8_UNORM = 0x13,
	FMT6_16_UNORM = 0x15,
	FMT6_16_SNORM = 0x16,
	FMT6_16_FLOAT = 0x17,
	FMT6_16_UINT = 0x18,
	FMT6_16_SINT = 0x19,
	FMT6_8_8_8_UNORM = 0x21,
	FMT6_8_8_8_SNORM = 0x22,
	FMT6_8_8_8_UINT = 0x23,
	FMT6_8_8_8_SINT = 0x24,
	FMT6_8_8_8_8_UNORM = 0x30,
	FMT6_8_8_8_X8_UNORM = 0x31,
	FMT6_8_8_8_8_SNORM = 0x32,
	FMT6_8_8_8_8_UINT = 0x33,
	FMT6_8_8_8_8_SINT = 0x34,
	FMT6_9_9_9_E5_FLOAT = 0x35,
	FMT6_10_10_10_2_UNORM = 0x36,
	FMT6_10_10_10_2_UNORM_DEST = 0x37,
	FMT6_10_10_10_2_SNORM = 0x39,
	FMT6_10_10_10_2_UINT = 0x3a,
	FMT6_10_10_10_2_SINT = 0x3b,
	FMT6_11_11_10_FLOAT = 0x42,
	FMT6_16_16_UNORM = 0x43,
	FMT6_16_16_SNORM = 0x44,
	FMT6_16_16_FLOAT = 0x45,
	FMT6_16_16_UINT = 0x46,
	FMT6_16_16_SINT = 0x47,
	FMT6_32_UNORM = 0x48,
	FMT6_32_SNORM = 0x49,
	FMT6_32_FLOAT = 0x4a,
	FMT6_32_UINT = 0x4b,
	FMT6_32_SINT = 0x4c,
	FMT6_32_FIXED = 0x4d,
	FMT6_16_16_16_UNORM = 0x58,
	FMT6_16_16_16_SNORM = 0x59,
	FMT6_16_16_16_FLOAT = 0x5a,
	FMT6_16_16_16_UINT = 0x5b,
	FMT6_16_16_16_SINT = 0x5c,
	FMT6_16_16_16_16_UNORM = 0x60,
	FMT6_16_16_16_16_SNORM = 0x61,
	FMT6_16_16_16_16_FLOAT = 0x62,
	FMT6_16_16_16_16_UINT = 0x63,
	FMT6_16_16_16_16_SINT = 0x64,
	FMT6_32_32_UNORM = 0x65,
	FMT6_32_32_SNORM = 0x66,
	FMT6_32_32_FLOAT = 0x67,
	FMT6_32_32_UINT = 0x68,
	FMT6_32_32_SINT = 0x69,
	FMT6_32_32_FIXED = 0x6a,
	FMT6_32_32_32_UNORM = 0x70,
	FMT6_32_32_32_SNORM = 0x71,
	FMT6_32_32_32_UINT = 0x72,
	FMT6_32_32_32_SINT = 0x73,
	FMT6_32_32_32_FLOAT = 0x74,
	FMT6_32_32_32_FIXED = 0x75,
	FMT6_32_32_32_32_UNORM = 0x80,
	FMT6_32_32_32_32_SNORM = 0x81,
	FMT6_32_32_32_32_FLOAT = 0x82,
	FMT6_32_32_32_32_UINT = 0x83,
	FMT6_32_32_32_32_SINT = 0x84,
	FMT6_32_32_32_32_FIXED = 0x85,
	FMT6_Z24_UNORM_S8_UINT_AS_R8G8B8A8 = 0x91,
	FMT6_Z24_UNORM_S8_UINT = 0xa0,
};

/* Name of a register, or NULL if not in this table. Array members are formatted into buf as
 * "CP_SCRATCH_REG(3)" and the high halves of 64-bit registers get "_HI"; buf_len >= 32. A static
 * inline because this header is the only part of the table that protocol/ carries. */
static inline const char *a6xx_reg_name(uint32_t offset, char *buf, unsigned buf_len)
{
	static const struct { uint32_t offset; const char *name; } regs[] = {
		{ REG_A6XX_RBBM_INT_0_STATUS, "RBBM_INT_0_STATUS" },
		{ REG_A6XX_RBBM_STATUS, "RBBM_STATUS" },
		{ REG_A6XX_CP_RB_BASE, "CP_RB_BASE" },
		{ REG_A6XX_CP_RB_BASE_HI, "CP_RB_BASE_HI" },
		{ REG_A6XX_CP_RB_CNTL, "CP_RB_CNTL" },
		{ REG_A6XX_CP_RB_RPTR_ADDR, "CP_RB_RPTR_ADDR" },
		{ REG_A6XX_CP_RB_RPTR_ADDR_HI, "CP_RB_RPTR_ADDR_HI" },
		{ REG_A6XX_CP_RB_RPTR, "CP_RB_RPTR" },
		{ REG_A6XX_CP_RB_WPTR, "CP_RB_WPTR" },
		{ REG_A6XX_CP_SQE_CNTL, "CP_SQE_CNTL" },
		{ REG_A6XX_CP_HW_FAULT, "CP_HW_FAULT" },
		{ REG_A6XX_CP_INTERRUPT_STATUS, "CP_INTERRUPT_STATUS" },
		{ REG_A6XX_CP_PROTECT_STATUS, "CP_PROTECT_STATUS" },
		{ REG_A6XX_CP_STATUS_1, "CP_STATUS_1" },
		{ REG_A6XX_CP_SQE_INSTR_BASE, "CP_SQE_INSTR_BASE" },
		{ REG_A6XX_CP_SQE_INSTR_BASE_HI, "CP_SQE_INSTR_BASE_HI" },
		{ REG_A6XX_CP_MISC_CNTL, "CP_MISC_CNTL" },
		{ REG_A6XX_CP_CHICKEN_DBG, "CP_CHICKEN_DBG" },
		{ REG_A6XX_CP_ADDR_MODE_CNTL, "CP_ADDR_MODE_CNTL" },
		{ REG_A6XX_CP_DBG_ECO_CNTL, "CP_DBG_ECO_CNTL" },
		{ REG_A6XX_CP_APRIV_CNTL, "CP_APRIV_CNTL" },
		{ REG_A6XX_CP_PROTECT_CNTL, "CP_PROTECT_CNTL" },
		{ REG_A6XX_CP_CONTEXT_SWITCH_CNTL, "CP_CONTEXT_SWITCH_CNTL" },
		{ REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE, "CP_CRASH_DUMP_SCRIPT_BASE" },
		{ REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE_HI, "CP_CRASH_DUMP_SCRIPT_BASE_HI" },
		{ REG_A6XX_CP_CRASH_DUMP_CNTL, "CP_CRASH_DUMP_CNTL" },
		{ REG_A6XX_CP_CRASH_DUMP_STATUS, "CP_CRASH_DUMP_STATUS" },
		{ REG_A6XX_CP_SQE_STAT_ADDR, "CP_SQE_STAT_ADDR" },
		{ REG_A6XX_CP_SQE_STAT_DATA, "CP_SQE_STAT_DATA" },
		{ REG_A6XX_CP_DRAW_STATE_ADDR, "CP_DRAW_STATE_ADDR" },
		{ REG_A6XX_CP_DRAW_STATE_DATA, "CP_DRAW_STATE_DATA" },
		{ REG_A6XX_CP_IB1_BASE, "CP_IB1_BASE" },
		{ REG_A6XX_CP_IB1_BASE_HI, "CP_IB1_BASE_HI" },
		{ REG_A6XX_CP_IB1_REM_SIZE, "CP_IB1_REM_SIZE" },
		{ REG_A6XX_CP_IB2_BASE, "CP_IB2_BASE" },
		{ REG_A6XX_CP_IB2_BASE_HI, "CP_IB2_BASE_HI" },
		{ REG_A6XX_CP_IB2_REM_SIZE, "CP_IB2_REM_SIZE" },
		{ REG_A6XX_CP_SDS_BASE, "CP_SDS_BASE" },
		{ REG_A6XX_CP_SDS_BASE_HI, "CP_SDS_BASE_HI" },
		{ REG_A6XX_CP_SDS_REM_SIZE, "CP_SDS_REM_SIZE" },
		{ REG_A6XX_CP_MRB_BASE, "CP_MRB_BASE" },
		{ REG_A6XX_CP_MRB_BASE_HI, "CP_MRB_BASE_HI" },
		{ REG_A6XX_CP_MRB_REM_SIZE, "CP_MRB_REM_SIZE" },
		{ REG_A6XX_CP_IB1_INIT_SIZE, "CP_IB1_INIT_SIZE" },
		{ REG_A6XX_CP_IB2_INIT_SIZE, "CP_IB2_INIT_SIZE" },
		{ REG_A6XX_CP_ALWAYS_ON_COUNTER, "CP_ALWAYS_ON_COUNTER" },
		{ REG_A6XX_CP_ALWAYS_ON_COUNTER_HI, "CP_ALWAYS_ON_COUNTER_HI" },
		{ REG_A6XX_CP_ALWAYS_ON_CONTEXT, "CP_ALWAYS_ON_CONTEXT" },
		{ REG_A6XX_CP_ALWAYS_ON_CONTEXT_HI, "CP_ALWAYS_ON_CONTEXT_HI" },
		{ REG_A6XX_CP_AHB_CNTL, "CP_AHB_CNTL" },
		{ REG_A6XX_GRAS_2D_BLIT_CNTL, "GRAS_2D_BLIT_CNTL" },
		{ REG_A6XX_GRAS_2D_SRC_TL_X, "GRAS_2D_SRC_TL_X" },
		{ REG_A6XX_GRAS_2D_SRC_BR_X, "GRAS_2D_SRC_BR_X" },
		{ REG_A6XX_GRAS_2D_SRC_TL_Y, "GRAS_2D_SRC_TL_Y" },
		{ REG_A6XX_GRAS_2D_SRC_BR_Y, "GRAS_2D_SRC_BR_Y" },
		{ REG_A6XX_GRAS_2D_DST_TL, "GRAS_2D_DST_TL" },
		{ REG_A6XX_GRAS_2D_DST_BR, "GRAS_2D_DST_BR" },
		{ REG_A6XX_RB_WINDOW_OFFSET, "RB_WINDOW_OFFSET" },
		{ REG_A6XX_RB_UNKNOWN_88D0, "RB_UNKNOWN_88D0" },
		{ REG_A6XX_RB_BLIT_SCISSOR_TL, "RB_BLIT_SCISSOR_TL" },
		{ REG_A6XX_RB_BLIT_SCISSOR_BR, "RB_BLIT_SCISSOR_BR" },
		{ REG_A6XX_RB_BIN_CONTROL2, "RB_BIN_CONTROL2" },
		{ REG_A6XX_RB_WINDOW_OFFSET2, "RB_WINDOW_OFFSET2" },
		{ REG_A6XX_RB_MSAA_CNTL, "RB_MSAA_CNTL" },
		{ REG_A6XX_RB_BLIT_BASE_GMEM, "RB_BLIT_BASE_GMEM" },
		{ REG_A6XX_RB_BLIT_DST_INFO, "RB_BLIT_DST_INFO" },
		{ REG_A6XX_RB_BLIT_DST, "RB_BLIT_DST" },
		{ REG_A6XX_RB_BLIT_DST_HI, "RB_BLIT_DST_HI" },
		{ REG_A6XX_RB_BLIT_DST_PITCH, "RB_BLIT_DST_PITCH" },
		{ REG_A6XX_RB_BLIT_DST_ARRAY_PITCH, "RB_BLIT_DST_ARRAY_PITCH" },
		{ REG_A6XX_RB_BLIT_FLAG_DST, "RB_BLIT_FLAG_DST" },
		{ REG_A6XX_RB_BLIT_FLAG_DST_HI, "RB_BLIT_FLAG_DST_HI" },
		{ REG_A6XX_RB_BLIT_FLAG_DST_PITCH, "RB_BLIT_FLAG_DST_PITCH" },
		{ REG_A6XX_RB_BLIT_CLEAR_COLOR_DW0, "RB_BLIT_CLEAR_COLOR_DW0" },
		{ REG_A6XX_RB_BLIT_CLEAR_COLOR_DW1, "RB_BLIT_CLEAR_COLOR_DW1" },
		{ REG_A6XX_RB_BLIT_CLEAR_COLOR_DW2, "RB_BLIT_CLEAR_COLOR_DW2" },
		{ REG_A6XX_RB_BLIT_CLEAR_COLOR_DW3, "RB_BLIT_CLEAR_COLOR_DW3" },
		{ REG_A6XX_RB_BLIT_INFO, "RB_BLIT_INFO" },
		{ REG_A6XX_RB_2D_BLIT_CNTL, "RB_2D_BLIT_CNTL" },
		{ REG_A6XX_RB_2D_UNKNOWN_8C01, "RB_2D_UNKNOWN_8C01" },
		{ REG_A6XX_RB_2D_DST_INFO, "RB_2D_DST_INFO" },
		{ REG_A6XX_RB_2D_DST, "RB_2D_DST" },
		{ REG_A6XX_RB_2D_DST_HI, "RB_2D_DST_HI" },
		{ REG_A6XX_RB_2D_DST_PITCH, "RB_2D_DST_PITCH" },
		{ REG_A6XX_RB_2D_DST_FLAGS, "RB_2D_DST_FLAGS" },
		{ REG_A6XX_RB_2D_DST_FLAGS_HI, "RB_2D_DST_FLAGS_HI" },
		{ REG_A6XX_RB_2D_DST_FLAGS_PITCH, "RB_2D_DST_FLAGS_PITCH" },
		{ REG_A6XX_RB_2D_SRC_SOLID_C0, "RB_2D_SRC_SOLID_C0" },
		{ REG_A6XX_RB_2D_SRC_SOLID_C1, "RB_2D_SRC_SOLID_C1" },
		{ REG_A6XX_RB_2D_SRC_SOLID_C2, "RB_2D_SRC_SOLID_C2" },
		{ REG_A6XX_RB_2D_SRC_SOLID_C3, "RB_2D_SRC_SOLID_C3" },
		{ REG_A6XX_RB_DBG_ECO_CNTL, "RB_DBG_ECO_CNTL" },
		{ REG_A6XX_RB_CCU_CNTL, "RB_CCU_CNTL" },
		{ REG_A6XX_SP_2D_DST_FORMAT, "SP_2D_DST_FORMAT" },
		{ REG_A6XX_SP_PS_2D_SRC_INFO, "SP_PS_2D_SRC_INFO" },
		{ REG_A6XX_SP_PS_2D_SRC_SIZE, "SP_PS_2D_SRC_SIZE" },
		{ REG_A6XX_SP_PS_2D_SRC, "SP_PS_2D_SRC" },
		{ REG_A6XX_SP_PS_2D_SRC_HI, "SP_PS_2D_SRC_HI" },
		{ REG_A6XX_SP_PS_2D_SRC_PITCH, "SP_PS_2D_SRC_PITCH" },
		{ REG_A6XX_SP_PS_2D_SRC_FLAGS, "SP_PS_2D_SRC_FLAGS" },
		{ REG_A6XX_SP_PS_2D_SRC_FLAGS_HI, "SP_PS_2D_SRC_FLAGS_HI" },
		{ REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH, "SP_PS_2D_SRC_FLAGS_PITCH" },
	};
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].offset == offset)
			return regs[i].name;
	const char *array = NULL;
	uint32_t index = 0;
	if (offset >= REG_A6XX_CP_PROTECT_BASE && offset < REG_A6XX_CP_PROTECT_BASE + A6XX_CP_PROTECT_COUNT) {
		array = "CP_PROTECT";
		index = offset - REG_A6XX_CP_PROTECT_BASE;
	} else if (offset >= REG_A6XX_CP_SCRATCH_BASE &&
		   offset < REG_A6XX_CP_SCRATCH_BASE + A6XX_CP_SCRATCH_COUNT) {
		array = "CP_SCRATCH_REG";
		index = offset - REG_A6XX_CP_SCRATCH_BASE;
	}
	if (!array || !buf || buf_len < 32)
		return NULL;
	/* Hand-formatted to keep this header free of stdio. */
	unsigned n = 0;
	while (array[n] && n < buf_len - 5) {
		buf[n] = array[n];
		n++;
	}
	buf[n++] = '(';
	if (index >= 10)
		buf[n++] = (char)('0' + index / 10);
	buf[n++] = (char)('0' + index % 10);
	buf[n++] = ')';
	buf[n] = '\0';
	return buf;
}

#endif
