/* Adreno a6xx register offsets (in dwords, as PKT4 and CP_REG_TO_MEM address them) that ferry's
 * CP model, validator and decoders use. Every offset was checked against Mesa's
 * src/freedreno/registers/adreno/a6xx.xml; registers that could not be confirmed are left out. */
#ifndef FERRY_HW_A6XX_REGS_H
#define FERRY_HW_A6XX_REGS_H

#include <stdbool.h>
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

/* Every other register of the a6xx register space that Turnip and freedreno write (and the
 * UCHE / perfcounter-select ones the kernel programs), for decoders and dumps: names and offsets
 * from the A6XX domain of Mesa's src/freedreno/registers/adreno/a6xx.xml. One entry per register;
 * an array member (RB_MRT[i].BUF_INFO) is one entry with its stride and count and reads
 * "RB_MRT_BUF_INFO(3)"; a 64-bit register names its high half NAME_HI. Registers with a
 * REG_A6XX_ define above are named by a6xx_reg_name's own table instead. */
struct a6xx_reg_name_entry {
	uint16_t offset; /* the register, or an array's member 0 */
	uint8_t stride;  /* array: dwords from one member to the next; 0 = one register */
	uint8_t count;   /* array: members */
	uint8_t is64;    /* 64-bit: offset + 1 is the high half */
	const char *name;
};
#define A6XX_REG_NAME_ENTRIES \
	{ 0x0c02, 0, 0, 0, "VSC_BIN_SIZE" }, \
	{ 0x0c03, 0, 0, 1, "VSC_DRAW_STRM_SIZE_ADDRESS" }, \
	{ 0x0c06, 0, 0, 0, "VSC_BIN_COUNT" }, \
	{ 0x0c10, 1, 32, 0, "VSC_PIPE_CONFIG_REG" }, \
	{ 0x0c30, 0, 0, 1, "VSC_PRIM_STRM_ADDRESS" }, \
	{ 0x0c32, 0, 0, 0, "VSC_PRIM_STRM_PITCH" }, \
	{ 0x0c33, 0, 0, 0, "VSC_PRIM_STRM_LIMIT" }, \
	{ 0x0c34, 0, 0, 1, "VSC_DRAW_STRM_ADDRESS" }, \
	{ 0x0c36, 0, 0, 0, "VSC_DRAW_STRM_PITCH" }, \
	{ 0x0c37, 0, 0, 0, "VSC_DRAW_STRM_LIMIT" }, \
	{ 0x0c38, 1, 32, 0, "VSC_STATE_REG" }, \
	{ 0x0c58, 1, 32, 0, "VSC_PRIM_STRM_SIZE_REG" }, \
	{ 0x0c78, 1, 32, 0, "VSC_DRAW_STRM_SIZE_REG" }, \
	{ 0x0cd8, 0, 0, 0, "VSC_PERFCTR_VSC_SEL_0" }, \
	{ 0x0cd9, 0, 0, 0, "VSC_PERFCTR_VSC_SEL_1" }, \
	{ 0x0e00, 0, 0, 0, "UCHE_ADDR_MODE_CNTL" }, \
	{ 0x0e01, 0, 0, 0, "UCHE_MODE_CNTL" }, \
	{ 0x0e05, 0, 0, 0, "UCHE_WRITE_RANGE_MAX_LO" }, \
	{ 0x0e06, 0, 0, 0, "UCHE_WRITE_RANGE_MAX_HI" }, \
	{ 0x0e07, 0, 0, 0, "UCHE_WRITE_THRU_BASE_LO" }, \
	{ 0x0e08, 0, 0, 0, "UCHE_WRITE_THRU_BASE_HI" }, \
	{ 0x0e09, 0, 0, 0, "UCHE_TRAP_BASE_LO" }, \
	{ 0x0e0a, 0, 0, 0, "UCHE_TRAP_BASE_HI" }, \
	{ 0x0e0b, 0, 0, 0, "UCHE_GMEM_RANGE_MIN_LO" }, \
	{ 0x0e0c, 0, 0, 0, "UCHE_GMEM_RANGE_MIN_HI" }, \
	{ 0x0e0d, 0, 0, 0, "UCHE_GMEM_RANGE_MAX_LO" }, \
	{ 0x0e0e, 0, 0, 0, "UCHE_GMEM_RANGE_MAX_HI" }, \
	{ 0x0e12, 0, 0, 0, "UCHE_UNKNOWN_0E12" }, \
	{ 0x0e17, 0, 0, 0, "UCHE_CACHE_WAYS" }, \
	{ 0x0e18, 0, 0, 0, "UCHE_FILTER_CNTL" }, \
	{ 0x0e19, 0, 0, 0, "UCHE_CLIENT_PF" }, \
	{ 0x0e1c, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_0" }, \
	{ 0x0e1d, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_1" }, \
	{ 0x0e1e, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_2" }, \
	{ 0x0e1f, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_3" }, \
	{ 0x0e20, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_4" }, \
	{ 0x0e21, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_5" }, \
	{ 0x0e22, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_6" }, \
	{ 0x0e23, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_7" }, \
	{ 0x0e24, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_8" }, \
	{ 0x0e25, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_9" }, \
	{ 0x0e26, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_10" }, \
	{ 0x0e27, 0, 0, 0, "UCHE_PERFCTR_UCHE_SEL_11" }, \
	{ 0x8000, 0, 0, 0, "GRAS_CL_CNTL" }, \
	{ 0x8001, 0, 0, 0, "GRAS_VS_CL_CNTL" }, \
	{ 0x8002, 0, 0, 0, "GRAS_DS_CL_CNTL" }, \
	{ 0x8003, 0, 0, 0, "GRAS_GS_CL_CNTL" }, \
	{ 0x8004, 0, 0, 0, "GRAS_MAX_LAYER_INDEX" }, \
	{ 0x8005, 0, 0, 0, "GRAS_CNTL" }, \
	{ 0x8006, 0, 0, 0, "GRAS_CL_GUARDBAND_CLIP_ADJ" }, \
	{ 0x8010, 6, 16, 0, "GRAS_CL_VPORT_XOFFSET" }, \
	{ 0x8011, 6, 16, 0, "GRAS_CL_VPORT_XSCALE" }, \
	{ 0x8012, 6, 16, 0, "GRAS_CL_VPORT_YOFFSET" }, \
	{ 0x8013, 6, 16, 0, "GRAS_CL_VPORT_YSCALE" }, \
	{ 0x8014, 6, 16, 0, "GRAS_CL_VPORT_ZOFFSET" }, \
	{ 0x8015, 6, 16, 0, "GRAS_CL_VPORT_ZSCALE" }, \
	{ 0x8070, 2, 16, 0, "GRAS_CL_Z_CLAMP_MIN" }, \
	{ 0x8071, 2, 16, 0, "GRAS_CL_Z_CLAMP_MAX" }, \
	{ 0x8090, 0, 0, 0, "GRAS_SU_CNTL" }, \
	{ 0x8091, 0, 0, 0, "GRAS_SU_POINT_MINMAX" }, \
	{ 0x8092, 0, 0, 0, "GRAS_SU_POINT_SIZE" }, \
	{ 0x8094, 0, 0, 0, "GRAS_SU_DEPTH_PLANE_CNTL" }, \
	{ 0x8095, 0, 0, 0, "GRAS_SU_POLY_OFFSET_SCALE" }, \
	{ 0x8096, 0, 0, 0, "GRAS_SU_POLY_OFFSET_OFFSET" }, \
	{ 0x8097, 0, 0, 0, "GRAS_SU_POLY_OFFSET_OFFSET_CLAMP" }, \
	{ 0x8098, 0, 0, 0, "GRAS_SU_DEPTH_BUFFER_INFO" }, \
	{ 0x8099, 0, 0, 0, "GRAS_UNKNOWN_8099" }, \
	{ 0x809a, 0, 0, 0, "GRAS_UNKNOWN_809A" }, \
	{ 0x809b, 0, 0, 0, "GRAS_VS_LAYER_CNTL" }, \
	{ 0x809c, 0, 0, 0, "GRAS_GS_LAYER_CNTL" }, \
	{ 0x809d, 0, 0, 0, "GRAS_DS_LAYER_CNTL" }, \
	{ 0x80a0, 0, 0, 0, "GRAS_UNKNOWN_80A0" }, \
	{ 0x80a1, 0, 0, 0, "GRAS_BIN_CONTROL" }, \
	{ 0x80a2, 0, 0, 0, "GRAS_RAS_MSAA_CNTL" }, \
	{ 0x80a3, 0, 0, 0, "GRAS_DEST_MSAA_CNTL" }, \
	{ 0x80a4, 0, 0, 0, "GRAS_SAMPLE_CONFIG" }, \
	{ 0x80a5, 0, 0, 0, "GRAS_SAMPLE_LOCATION_0" }, \
	{ 0x80a6, 0, 0, 0, "GRAS_SAMPLE_LOCATION_1" }, \
	{ 0x80af, 0, 0, 0, "GRAS_UNKNOWN_80AF" }, \
	{ 0x80b0, 2, 16, 0, "GRAS_SC_SCREEN_SCISSOR_TL" }, \
	{ 0x80b1, 2, 16, 0, "GRAS_SC_SCREEN_SCISSOR_BR" }, \
	{ 0x80d0, 2, 16, 0, "GRAS_SC_VIEWPORT_SCISSOR_TL" }, \
	{ 0x80d1, 2, 16, 0, "GRAS_SC_VIEWPORT_SCISSOR_BR" }, \
	{ 0x80f0, 0, 0, 0, "GRAS_SC_WINDOW_SCISSOR_TL" }, \
	{ 0x80f1, 0, 0, 0, "GRAS_SC_WINDOW_SCISSOR_BR" }, \
	{ 0x8100, 0, 0, 0, "GRAS_LRZ_CNTL" }, \
	{ 0x8101, 0, 0, 0, "GRAS_UNKNOWN_8101" }, \
	{ 0x8102, 0, 0, 0, "GRAS_2D_BLIT_INFO" }, \
	{ 0x8103, 0, 0, 1, "GRAS_LRZ_BUFFER_BASE" }, \
	{ 0x8105, 0, 0, 0, "GRAS_LRZ_BUFFER_PITCH" }, \
	{ 0x8106, 0, 0, 1, "GRAS_LRZ_FAST_CLEAR_BUFFER_BASE" }, \
	{ 0x8109, 0, 0, 0, "GRAS_SAMPLE_CNTL" }, \
	{ 0x810a, 0, 0, 0, "GRAS_UNKNOWN_810A" }, \
	{ 0x8110, 0, 0, 0, "GRAS_UNKNOWN_8110" }, \
	{ 0x8407, 0, 0, 0, "GRAS_2D_UNKNOWN_8407" }, \
	{ 0x8408, 0, 0, 0, "GRAS_2D_UNKNOWN_8408" }, \
	{ 0x8409, 0, 0, 0, "GRAS_2D_UNKNOWN_8409" }, \
	{ 0x840a, 0, 0, 0, "GRAS_2D_RESOLVE_CNTL_1" }, \
	{ 0x840b, 0, 0, 0, "GRAS_2D_RESOLVE_CNTL_2" }, \
	{ 0x8600, 0, 0, 0, "GRAS_UNKNOWN_8600" }, \
	{ 0x8601, 0, 0, 0, "GRAS_ADDR_MODE_CNTL" }, \
	{ 0x8610, 0, 0, 0, "GRAS_PERFCTR_TSE_SEL_0" }, \
	{ 0x8611, 0, 0, 0, "GRAS_PERFCTR_TSE_SEL_1" }, \
	{ 0x8612, 0, 0, 0, "GRAS_PERFCTR_TSE_SEL_2" }, \
	{ 0x8613, 0, 0, 0, "GRAS_PERFCTR_TSE_SEL_3" }, \
	{ 0x8614, 0, 0, 0, "GRAS_PERFCTR_RAS_SEL_0" }, \
	{ 0x8615, 0, 0, 0, "GRAS_PERFCTR_RAS_SEL_1" }, \
	{ 0x8616, 0, 0, 0, "GRAS_PERFCTR_RAS_SEL_2" }, \
	{ 0x8617, 0, 0, 0, "GRAS_PERFCTR_RAS_SEL_3" }, \
	{ 0x8618, 0, 0, 0, "GRAS_PERFCTR_LRZ_SEL_0" }, \
	{ 0x8619, 0, 0, 0, "GRAS_PERFCTR_LRZ_SEL_1" }, \
	{ 0x861a, 0, 0, 0, "GRAS_PERFCTR_LRZ_SEL_2" }, \
	{ 0x861b, 0, 0, 0, "GRAS_PERFCTR_LRZ_SEL_3" }, \
	{ 0x8800, 0, 0, 0, "RB_BIN_CONTROL" }, \
	{ 0x8801, 0, 0, 0, "RB_RENDER_CNTL" }, \
	{ 0x8802, 0, 0, 0, "RB_RAS_MSAA_CNTL" }, \
	{ 0x8803, 0, 0, 0, "RB_DEST_MSAA_CNTL" }, \
	{ 0x8804, 0, 0, 0, "RB_SAMPLE_CONFIG" }, \
	{ 0x8805, 0, 0, 0, "RB_SAMPLE_LOCATION_0" }, \
	{ 0x8806, 0, 0, 0, "RB_SAMPLE_LOCATION_1" }, \
	{ 0x8809, 0, 0, 0, "RB_RENDER_CONTROL0" }, \
	{ 0x880a, 0, 0, 0, "RB_RENDER_CONTROL1" }, \
	{ 0x880b, 0, 0, 0, "RB_FS_OUTPUT_CNTL0" }, \
	{ 0x880c, 0, 0, 0, "RB_FS_OUTPUT_CNTL1" }, \
	{ 0x880d, 0, 0, 0, "RB_RENDER_COMPONENTS" }, \
	{ 0x880e, 0, 0, 0, "RB_DITHER_CNTL" }, \
	{ 0x880f, 0, 0, 0, "RB_SRGB_CNTL" }, \
	{ 0x8810, 0, 0, 0, "RB_SAMPLE_CNTL" }, \
	{ 0x8811, 0, 0, 0, "RB_UNKNOWN_8811" }, \
	{ 0x8818, 0, 0, 0, "RB_UNKNOWN_8818" }, \
	{ 0x8819, 0, 0, 0, "RB_UNKNOWN_8819" }, \
	{ 0x881a, 0, 0, 0, "RB_UNKNOWN_881A" }, \
	{ 0x881b, 0, 0, 0, "RB_UNKNOWN_881B" }, \
	{ 0x881c, 0, 0, 0, "RB_UNKNOWN_881C" }, \
	{ 0x881d, 0, 0, 0, "RB_UNKNOWN_881D" }, \
	{ 0x881e, 0, 0, 0, "RB_UNKNOWN_881E" }, \
	{ 0x8820, 8, 8, 0, "RB_MRT_CONTROL" }, \
	{ 0x8821, 8, 8, 0, "RB_MRT_BLEND_CONTROL" }, \
	{ 0x8822, 8, 8, 0, "RB_MRT_BUF_INFO" }, \
	{ 0x8823, 8, 8, 0, "RB_MRT_PITCH" }, \
	{ 0x8824, 8, 8, 0, "RB_MRT_ARRAY_PITCH" }, \
	{ 0x8825, 8, 8, 1, "RB_MRT_BASE" }, \
	{ 0x8827, 8, 8, 0, "RB_MRT_BASE_GMEM" }, \
	{ 0x8860, 0, 0, 0, "RB_BLEND_RED_F32" }, \
	{ 0x8861, 0, 0, 0, "RB_BLEND_GREEN_F32" }, \
	{ 0x8862, 0, 0, 0, "RB_BLEND_BLUE_F32" }, \
	{ 0x8863, 0, 0, 0, "RB_BLEND_ALPHA_F32" }, \
	{ 0x8864, 0, 0, 0, "RB_ALPHA_CONTROL" }, \
	{ 0x8865, 0, 0, 0, "RB_BLEND_CNTL" }, \
	{ 0x8870, 0, 0, 0, "RB_DEPTH_PLANE_CNTL" }, \
	{ 0x8871, 0, 0, 0, "RB_DEPTH_CNTL" }, \
	{ 0x8872, 0, 0, 0, "RB_DEPTH_BUFFER_INFO" }, \
	{ 0x8873, 0, 0, 0, "RB_DEPTH_BUFFER_PITCH" }, \
	{ 0x8874, 0, 0, 0, "RB_DEPTH_BUFFER_ARRAY_PITCH" }, \
	{ 0x8875, 0, 0, 1, "RB_DEPTH_BUFFER_BASE" }, \
	{ 0x8877, 0, 0, 0, "RB_DEPTH_BUFFER_BASE_GMEM" }, \
	{ 0x8878, 0, 0, 0, "RB_Z_BOUNDS_MIN" }, \
	{ 0x8879, 0, 0, 0, "RB_Z_BOUNDS_MAX" }, \
	{ 0x8880, 0, 0, 0, "RB_STENCIL_CONTROL" }, \
	{ 0x8881, 0, 0, 0, "RB_STENCIL_INFO" }, \
	{ 0x8882, 0, 0, 0, "RB_STENCIL_BUFFER_PITCH" }, \
	{ 0x8883, 0, 0, 0, "RB_STENCIL_BUFFER_ARRAY_PITCH" }, \
	{ 0x8884, 0, 0, 1, "RB_STENCIL_BUFFER_BASE" }, \
	{ 0x8886, 0, 0, 0, "RB_STENCIL_BUFFER_BASE_GMEM" }, \
	{ 0x8887, 0, 0, 0, "RB_STENCILREF" }, \
	{ 0x8888, 0, 0, 0, "RB_STENCILMASK" }, \
	{ 0x8889, 0, 0, 0, "RB_STENCILWRMASK" }, \
	{ 0x8890, 0, 0, 0, "RB_WINDOW_OFFSET" }, \
	{ 0x8891, 0, 0, 0, "RB_SAMPLE_COUNT_CONTROL" }, \
	{ 0x8898, 0, 0, 0, "RB_LRZ_CNTL" }, \
	{ 0x88c0, 0, 0, 0, "RB_Z_CLAMP_MIN" }, \
	{ 0x88c1, 0, 0, 0, "RB_Z_CLAMP_MAX" }, \
	{ 0x88d0, 0, 0, 0, "RB_UNKNOWN_88D0" }, \
	{ 0x88d1, 0, 0, 0, "RB_BLIT_SCISSOR_TL" }, \
	{ 0x88d2, 0, 0, 0, "RB_BLIT_SCISSOR_BR" }, \
	{ 0x88d3, 0, 0, 0, "RB_BIN_CONTROL2" }, \
	{ 0x88d4, 0, 0, 0, "RB_WINDOW_OFFSET2" }, \
	{ 0x88d5, 0, 0, 0, "RB_MSAA_CNTL" }, \
	{ 0x88d6, 0, 0, 0, "RB_BLIT_BASE_GMEM" }, \
	{ 0x88d7, 0, 0, 0, "RB_BLIT_DST_INFO" }, \
	{ 0x88d8, 0, 0, 1, "RB_BLIT_DST" }, \
	{ 0x88da, 0, 0, 0, "RB_BLIT_DST_PITCH" }, \
	{ 0x88db, 0, 0, 0, "RB_BLIT_DST_ARRAY_PITCH" }, \
	{ 0x88dc, 0, 0, 1, "RB_BLIT_FLAG_DST" }, \
	{ 0x88de, 0, 0, 0, "RB_BLIT_FLAG_DST_PITCH" }, \
	{ 0x88df, 0, 0, 0, "RB_BLIT_CLEAR_COLOR_DW0" }, \
	{ 0x88e0, 0, 0, 0, "RB_BLIT_CLEAR_COLOR_DW1" }, \
	{ 0x88e1, 0, 0, 0, "RB_BLIT_CLEAR_COLOR_DW2" }, \
	{ 0x88e2, 0, 0, 0, "RB_BLIT_CLEAR_COLOR_DW3" }, \
	{ 0x88e3, 0, 0, 0, "RB_BLIT_INFO" }, \
	{ 0x88f0, 0, 0, 0, "RB_UNKNOWN_88F0" }, \
	{ 0x88f1, 0, 0, 1, "RB_UNK_FLAG_BUFFER_BASE" }, \
	{ 0x88f3, 0, 0, 0, "RB_UNK_FLAG_BUFFER_PITCH" }, \
	{ 0x88f4, 0, 0, 0, "RB_UNKNOWN_88F4" }, \
	{ 0x8900, 0, 0, 1, "RB_DEPTH_FLAG_BUFFER_BASE" }, \
	{ 0x8902, 0, 0, 0, "RB_DEPTH_FLAG_BUFFER_PITCH" }, \
	{ 0x8903, 3, 8, 1, "RB_MRT_FLAG_BUFFER_ADDR" }, \
	{ 0x8905, 3, 8, 0, "RB_MRT_FLAG_BUFFER_PITCH" }, \
	{ 0x8927, 0, 0, 1, "RB_SAMPLE_COUNT_ADDR" }, \
	{ 0x8c1b, 0, 0, 1, "RB_2D_DST_PLANE1" }, \
	{ 0x8c1d, 0, 0, 0, "RB_2D_DST_PLANE_PITCH" }, \
	{ 0x8c1e, 0, 0, 1, "RB_2D_DST_PLANE2" }, \
	{ 0x8c23, 0, 0, 1, "RB_2D_DST_FLAGS_PLANE" }, \
	{ 0x8c25, 0, 0, 0, "RB_2D_DST_FLAGS_PLANE_PITCH" }, \
	{ 0x8e01, 0, 0, 0, "RB_UNKNOWN_8E01" }, \
	{ 0x8e05, 0, 0, 0, "RB_ADDR_MODE_CNTL" }, \
	{ 0x8e08, 0, 0, 0, "RB_NC_MODE_CNTL" }, \
	{ 0x8e10, 0, 0, 0, "RB_PERFCTR_RB_SEL_0" }, \
	{ 0x8e11, 0, 0, 0, "RB_PERFCTR_RB_SEL_1" }, \
	{ 0x8e12, 0, 0, 0, "RB_PERFCTR_RB_SEL_2" }, \
	{ 0x8e13, 0, 0, 0, "RB_PERFCTR_RB_SEL_3" }, \
	{ 0x8e14, 0, 0, 0, "RB_PERFCTR_RB_SEL_4" }, \
	{ 0x8e15, 0, 0, 0, "RB_PERFCTR_RB_SEL_5" }, \
	{ 0x8e16, 0, 0, 0, "RB_PERFCTR_RB_SEL_6" }, \
	{ 0x8e17, 0, 0, 0, "RB_PERFCTR_RB_SEL_7" }, \
	{ 0x8e18, 0, 0, 0, "RB_PERFCTR_CCU_SEL_0" }, \
	{ 0x8e19, 0, 0, 0, "RB_PERFCTR_CCU_SEL_1" }, \
	{ 0x8e1a, 0, 0, 0, "RB_PERFCTR_CCU_SEL_2" }, \
	{ 0x8e1b, 0, 0, 0, "RB_PERFCTR_CCU_SEL_3" }, \
	{ 0x8e1c, 0, 0, 0, "RB_PERFCTR_CCU_SEL_4" }, \
	{ 0x8e28, 0, 0, 0, "RB_UNKNOWN_8E28" }, \
	{ 0x8e2c, 0, 0, 0, "RB_PERFCTR_CMP_SEL_0" }, \
	{ 0x8e2d, 0, 0, 0, "RB_PERFCTR_CMP_SEL_1" }, \
	{ 0x8e2e, 0, 0, 0, "RB_PERFCTR_CMP_SEL_2" }, \
	{ 0x8e2f, 0, 0, 0, "RB_PERFCTR_CMP_SEL_3" }, \
	{ 0x8e3b, 0, 0, 0, "RB_RB_SUB_BLOCK_SEL_CNTL_HOST" }, \
	{ 0x8e3d, 0, 0, 0, "RB_RB_SUB_BLOCK_SEL_CNTL_CD" }, \
	{ 0x8e50, 0, 0, 0, "RB_CONTEXT_SWITCH_GMEM_SAVE_RESTORE" }, \
	{ 0x8e51, 0, 0, 0, "RB_UNKNOWN_8E51" }, \
	{ 0x9100, 0, 0, 0, "VPC_UNKNOWN_9100" }, \
	{ 0x9101, 0, 0, 0, "VPC_VS_CLIP_CNTL" }, \
	{ 0x9102, 0, 0, 0, "VPC_GS_CLIP_CNTL" }, \
	{ 0x9103, 0, 0, 0, "VPC_DS_CLIP_CNTL" }, \
	{ 0x9104, 0, 0, 0, "VPC_VS_LAYER_CNTL" }, \
	{ 0x9105, 0, 0, 0, "VPC_GS_LAYER_CNTL" }, \
	{ 0x9106, 0, 0, 0, "VPC_DS_LAYER_CNTL" }, \
	{ 0x9107, 0, 0, 0, "VPC_UNKNOWN_9107" }, \
	{ 0x9108, 0, 0, 0, "VPC_POLYGON_MODE" }, \
	{ 0x9200, 1, 8, 0, "VPC_VARYING_INTERP_MODE" }, \
	{ 0x9208, 1, 8, 0, "VPC_VARYING_PS_REPL_MODE" }, \
	{ 0x9210, 0, 0, 0, "VPC_UNKNOWN_9210" }, \
	{ 0x9211, 0, 0, 0, "VPC_UNKNOWN_9211" }, \
	{ 0x9212, 1, 4, 0, "VPC_VAR_DISABLE" }, \
	{ 0x9216, 0, 0, 0, "VPC_SO_CNTL" }, \
	{ 0x9217, 0, 0, 0, "VPC_SO_PROG" }, \
	{ 0x9218, 0, 0, 1, "VPC_SO_STREAM_COUNTS" }, \
	{ 0x921a, 7, 4, 1, "VPC_SO_BUFFER_BASE" }, \
	{ 0x921c, 7, 4, 0, "VPC_SO_BUFFER_SIZE" }, \
	{ 0x921d, 7, 4, 0, "VPC_SO_NCOMP" }, \
	{ 0x921e, 7, 4, 0, "VPC_SO_BUFFER_OFFSET" }, \
	{ 0x921f, 7, 4, 1, "VPC_SO_FLUSH_BASE" }, \
	{ 0x9236, 0, 0, 0, "VPC_POINT_COORD_INVERT" }, \
	{ 0x9300, 0, 0, 0, "VPC_UNKNOWN_9300" }, \
	{ 0x9301, 0, 0, 0, "VPC_VS_PACK" }, \
	{ 0x9302, 0, 0, 0, "VPC_GS_PACK" }, \
	{ 0x9303, 0, 0, 0, "VPC_DS_PACK" }, \
	{ 0x9304, 0, 0, 0, "VPC_CNTL_0" }, \
	{ 0x9305, 0, 0, 0, "VPC_SO_BUF_CNTL" }, \
	{ 0x9306, 0, 0, 0, "VPC_SO_DISABLE" }, \
	{ 0x9600, 0, 0, 0, "VPC_UNKNOWN_9600" }, \
	{ 0x9601, 0, 0, 0, "VPC_ADDR_MODE_CNTL" }, \
	{ 0x9602, 0, 0, 0, "VPC_UNKNOWN_9602" }, \
	{ 0x9603, 0, 0, 0, "VPC_UNKNOWN_9603" }, \
	{ 0x9604, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_0" }, \
	{ 0x9605, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_1" }, \
	{ 0x9606, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_2" }, \
	{ 0x9607, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_3" }, \
	{ 0x9608, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_4" }, \
	{ 0x9609, 0, 0, 0, "VPC_PERFCTR_VPC_SEL_5" }, \
	{ 0x9800, 0, 0, 0, "PC_TESS_NUM_VERTEX" }, \
	{ 0x9801, 0, 0, 0, "PC_HS_INPUT_SIZE" }, \
	{ 0x9802, 0, 0, 0, "PC_TESS_CNTL" }, \
	{ 0x9803, 0, 0, 0, "PC_RESTART_INDEX" }, \
	{ 0x9804, 0, 0, 0, "PC_MODE_CNTL" }, \
	{ 0x9805, 0, 0, 0, "PC_UNKNOWN_9805" }, \
	{ 0x9806, 0, 0, 0, "PC_PRIMID_PASSTHRU" }, \
	{ 0x9840, 0, 0, 0, "PC_DRAW_CMD" }, \
	{ 0x9841, 0, 0, 0, "PC_DISPATCH_CMD" }, \
	{ 0x9842, 0, 0, 0, "PC_EVENT_CMD" }, \
	{ 0x9980, 0, 0, 0, "PC_UNKNOWN_9980" }, \
	{ 0x9981, 0, 0, 0, "PC_POLYGON_MODE" }, \
	{ 0x9b00, 0, 0, 0, "PC_PRIMITIVE_CNTL_0" }, \
	{ 0x9b01, 0, 0, 0, "PC_VS_OUT_CNTL" }, \
	{ 0x9b02, 0, 0, 0, "PC_GS_OUT_CNTL" }, \
	{ 0x9b03, 0, 0, 0, "PC_PRIMITIVE_CNTL_3" }, \
	{ 0x9b04, 0, 0, 0, "PC_DS_OUT_CNTL" }, \
	{ 0x9b05, 0, 0, 0, "PC_PRIMITIVE_CNTL_5" }, \
	{ 0x9b06, 0, 0, 0, "PC_PRIMITIVE_CNTL_6" }, \
	{ 0x9b07, 0, 0, 0, "PC_UNKNOWN_9B07" }, \
	{ 0x9b08, 0, 0, 0, "PC_UNKNOWN_9B08" }, \
	{ 0x9c00, 0, 0, 0, "PC_2D_EVENT_CMD" }, \
	{ 0x9e00, 0, 0, 0, "PC_DBG_ECO_CNTL" }, \
	{ 0x9e01, 0, 0, 0, "PC_ADDR_MODE_CNTL" }, \
	{ 0x9e08, 0, 0, 1, "PC_TESSFACTOR_ADDR" }, \
	{ 0x9e11, 0, 0, 0, "PC_VSTREAM_CONTROL" }, \
	{ 0x9e12, 0, 0, 1, "PC_BIN_PRIM_STRM" }, \
	{ 0x9e14, 0, 0, 1, "PC_BIN_DRAW_STRM" }, \
	{ 0x9e34, 0, 0, 0, "PC_PERFCTR_PC_SEL_0" }, \
	{ 0x9e35, 0, 0, 0, "PC_PERFCTR_PC_SEL_1" }, \
	{ 0x9e36, 0, 0, 0, "PC_PERFCTR_PC_SEL_2" }, \
	{ 0x9e37, 0, 0, 0, "PC_PERFCTR_PC_SEL_3" }, \
	{ 0x9e38, 0, 0, 0, "PC_PERFCTR_PC_SEL_4" }, \
	{ 0x9e39, 0, 0, 0, "PC_PERFCTR_PC_SEL_5" }, \
	{ 0x9e3a, 0, 0, 0, "PC_PERFCTR_PC_SEL_6" }, \
	{ 0x9e3b, 0, 0, 0, "PC_PERFCTR_PC_SEL_7" }, \
	{ 0x9e72, 0, 0, 0, "PC_UNKNOWN_9E72" }, \
	{ 0xa000, 0, 0, 0, "VFD_CONTROL_0" }, \
	{ 0xa001, 0, 0, 0, "VFD_CONTROL_1" }, \
	{ 0xa002, 0, 0, 0, "VFD_CONTROL_2" }, \
	{ 0xa003, 0, 0, 0, "VFD_CONTROL_3" }, \
	{ 0xa004, 0, 0, 0, "VFD_CONTROL_4" }, \
	{ 0xa005, 0, 0, 0, "VFD_CONTROL_5" }, \
	{ 0xa006, 0, 0, 0, "VFD_CONTROL_6" }, \
	{ 0xa007, 0, 0, 0, "VFD_MODE_CNTL" }, \
	{ 0xa008, 0, 0, 0, "VFD_UNKNOWN_A008" }, \
	{ 0xa009, 0, 0, 0, "VFD_ADD_OFFSET" }, \
	{ 0xa00e, 0, 0, 0, "VFD_INDEX_OFFSET" }, \
	{ 0xa00f, 0, 0, 0, "VFD_INSTANCE_START_OFFSET" }, \
	{ 0xa010, 4, 32, 1, "VFD_FETCH_BASE" }, \
	{ 0xa012, 4, 32, 0, "VFD_FETCH_SIZE" }, \
	{ 0xa013, 4, 32, 0, "VFD_FETCH_STRIDE" }, \
	{ 0xa090, 2, 32, 0, "VFD_DECODE_INSTR" }, \
	{ 0xa091, 2, 32, 0, "VFD_DECODE_STEP_RATE" }, \
	{ 0xa0d0, 1, 32, 0, "VFD_DEST_CNTL_INSTR" }, \
	{ 0xa0f8, 0, 0, 0, "SP_UNKNOWN_A0F8" }, \
	{ 0xa601, 0, 0, 0, "VFD_ADDR_MODE_CNTL" }, \
	{ 0xa610, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_0" }, \
	{ 0xa611, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_1" }, \
	{ 0xa612, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_2" }, \
	{ 0xa613, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_3" }, \
	{ 0xa614, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_4" }, \
	{ 0xa615, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_5" }, \
	{ 0xa616, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_6" }, \
	{ 0xa617, 0, 0, 0, "VFD_PERFCTR_VFD_SEL_7" }, \
	{ 0xa800, 0, 0, 0, "SP_VS_CTRL_REG0" }, \
	{ 0xa801, 0, 0, 0, "SP_VS_BRANCH_COND" }, \
	{ 0xa802, 0, 0, 0, "SP_VS_PRIMITIVE_CNTL" }, \
	{ 0xa803, 1, 16, 0, "SP_VS_OUT_REG" }, \
	{ 0xa813, 1, 8, 0, "SP_VS_VPC_DST_REG" }, \
	{ 0xa81b, 0, 0, 0, "SP_UNKNOWN_A81B" }, \
	{ 0xa81c, 0, 0, 0, "SP_VS_OBJ_START_LO" }, \
	{ 0xa81d, 0, 0, 0, "SP_VS_OBJ_START_HI" }, \
	{ 0xa822, 0, 0, 0, "SP_VS_TEX_COUNT" }, \
	{ 0xa823, 0, 0, 0, "SP_VS_CONFIG" }, \
	{ 0xa824, 0, 0, 0, "SP_VS_INSTRLEN" }, \
	{ 0xa830, 0, 0, 0, "SP_HS_CTRL_REG0" }, \
	{ 0xa831, 0, 0, 0, "SP_HS_UNKNOWN_A831" }, \
	{ 0xa833, 0, 0, 0, "SP_HS_UNKNOWN_A833" }, \
	{ 0xa834, 0, 0, 0, "SP_HS_OBJ_START_LO" }, \
	{ 0xa835, 0, 0, 0, "SP_HS_OBJ_START_HI" }, \
	{ 0xa83a, 0, 0, 0, "SP_HS_TEX_COUNT" }, \
	{ 0xa83b, 0, 0, 0, "SP_HS_CONFIG" }, \
	{ 0xa83c, 0, 0, 0, "SP_HS_INSTRLEN" }, \
	{ 0xa840, 0, 0, 0, "SP_DS_CTRL_REG0" }, \
	{ 0xa842, 0, 0, 0, "SP_DS_PRIMITIVE_CNTL" }, \
	{ 0xa843, 1, 16, 0, "SP_DS_OUT_REG" }, \
	{ 0xa853, 1, 8, 0, "SP_DS_VPC_DST_REG" }, \
	{ 0xa85b, 0, 0, 0, "SP_DS_UNKNOWN_A85B" }, \
	{ 0xa85c, 0, 0, 0, "SP_DS_OBJ_START_LO" }, \
	{ 0xa85d, 0, 0, 0, "SP_DS_OBJ_START_HI" }, \
	{ 0xa862, 0, 0, 0, "SP_DS_TEX_COUNT" }, \
	{ 0xa863, 0, 0, 0, "SP_DS_CONFIG" }, \
	{ 0xa864, 0, 0, 0, "SP_DS_INSTRLEN" }, \
	{ 0xa870, 0, 0, 0, "SP_GS_CTRL_REG0" }, \
	{ 0xa871, 0, 0, 0, "SP_GS_PRIM_SIZE" }, \
	{ 0xa872, 0, 0, 0, "SP_GS_BRANCH_COND" }, \
	{ 0xa873, 0, 0, 0, "SP_GS_PRIMITIVE_CNTL" }, \
	{ 0xa874, 1, 16, 0, "SP_GS_OUT_REG" }, \
	{ 0xa884, 1, 8, 0, "SP_GS_VPC_DST_REG" }, \
	{ 0xa88d, 0, 0, 0, "SP_GS_OBJ_START_LO" }, \
	{ 0xa88e, 0, 0, 0, "SP_GS_OBJ_START_HI" }, \
	{ 0xa893, 0, 0, 0, "SP_GS_TEX_COUNT" }, \
	{ 0xa894, 0, 0, 0, "SP_GS_CONFIG" }, \
	{ 0xa895, 0, 0, 0, "SP_GS_INSTRLEN" }, \
	{ 0xa8a0, 0, 0, 0, "SP_VS_TEX_SAMP_LO" }, \
	{ 0xa8a1, 0, 0, 0, "SP_VS_TEX_SAMP_HI" }, \
	{ 0xa8a2, 0, 0, 0, "SP_HS_TEX_SAMP_LO" }, \
	{ 0xa8a3, 0, 0, 0, "SP_HS_TEX_SAMP_HI" }, \
	{ 0xa8a4, 0, 0, 0, "SP_DS_TEX_SAMP_LO" }, \
	{ 0xa8a5, 0, 0, 0, "SP_DS_TEX_SAMP_HI" }, \
	{ 0xa8a6, 0, 0, 0, "SP_GS_TEX_SAMP_LO" }, \
	{ 0xa8a7, 0, 0, 0, "SP_GS_TEX_SAMP_HI" }, \
	{ 0xa8a8, 0, 0, 0, "SP_VS_TEX_CONST_LO" }, \
	{ 0xa8a9, 0, 0, 0, "SP_VS_TEX_CONST_HI" }, \
	{ 0xa8aa, 0, 0, 0, "SP_HS_TEX_CONST_LO" }, \
	{ 0xa8ab, 0, 0, 0, "SP_HS_TEX_CONST_HI" }, \
	{ 0xa8ac, 0, 0, 0, "SP_DS_TEX_CONST_LO" }, \
	{ 0xa8ad, 0, 0, 0, "SP_DS_TEX_CONST_HI" }, \
	{ 0xa8ae, 0, 0, 0, "SP_GS_TEX_CONST_LO" }, \
	{ 0xa8af, 0, 0, 0, "SP_GS_TEX_CONST_HI" }, \
	{ 0xa980, 0, 0, 0, "SP_FS_CTRL_REG0" }, \
	{ 0xa981, 0, 0, 0, "SP_FS_BRANCH_COND" }, \
	{ 0xa982, 0, 0, 0, "SP_UNKNOWN_A982" }, \
	{ 0xa983, 0, 0, 0, "SP_FS_OBJ_START_LO" }, \
	{ 0xa984, 0, 0, 0, "SP_FS_OBJ_START_HI" }, \
	{ 0xa989, 0, 0, 0, "SP_BLEND_CNTL" }, \
	{ 0xa98a, 0, 0, 0, "SP_SRGB_CNTL" }, \
	{ 0xa98b, 0, 0, 0, "SP_FS_RENDER_COMPONENTS" }, \
	{ 0xa98c, 0, 0, 0, "SP_FS_OUTPUT_CNTL0" }, \
	{ 0xa98d, 0, 0, 0, "SP_FS_OUTPUT_CNTL1" }, \
	{ 0xa98e, 1, 8, 0, "SP_FS_OUTPUT_REG" }, \
	{ 0xa996, 1, 8, 0, "SP_FS_MRT_REG" }, \
	{ 0xa99e, 0, 0, 0, "SP_FS_PREFETCH_CNTL" }, \
	{ 0xa99f, 1, 4, 0, "SP_FS_PREFETCH_CMD" }, \
	{ 0xa9a3, 1, 4, 0, "SP_FS_BINDLESS_PREFETCH_CMD" }, \
	{ 0xa9a7, 0, 0, 0, "SP_FS_TEX_COUNT" }, \
	{ 0xa9a8, 0, 0, 0, "SP_UNKNOWN_A9A8" }, \
	{ 0xa9b0, 0, 0, 0, "SP_CS_CTRL_REG0" }, \
	{ 0xa9b1, 0, 0, 0, "SP_CS_UNKNOWN_A9B1" }, \
	{ 0xa9b3, 0, 0, 0, "SP_CS_UNKNOWN_A9B3" }, \
	{ 0xa9b4, 0, 0, 0, "SP_CS_OBJ_START_LO" }, \
	{ 0xa9b5, 0, 0, 0, "SP_CS_OBJ_START_HI" }, \
	{ 0xa9ba, 0, 0, 0, "SP_CS_TEX_COUNT" }, \
	{ 0xa9bb, 0, 0, 0, "SP_CS_CONFIG" }, \
	{ 0xa9bc, 0, 0, 0, "SP_CS_INSTRLEN" }, \
	{ 0xa9e0, 0, 0, 0, "SP_FS_TEX_SAMP_LO" }, \
	{ 0xa9e1, 0, 0, 0, "SP_FS_TEX_SAMP_HI" }, \
	{ 0xa9e2, 0, 0, 0, "SP_CS_TEX_SAMP_LO" }, \
	{ 0xa9e3, 0, 0, 0, "SP_CS_TEX_SAMP_HI" }, \
	{ 0xa9e4, 0, 0, 0, "SP_FS_TEX_CONST_LO" }, \
	{ 0xa9e5, 0, 0, 0, "SP_FS_TEX_CONST_HI" }, \
	{ 0xa9e6, 0, 0, 0, "SP_CS_TEX_CONST_LO" }, \
	{ 0xa9e7, 0, 0, 0, "SP_CS_TEX_CONST_HI" }, \
	{ 0xa9e8, 2, 5, 1, "SP_CS_BINDLESS_BASE_ADDR" }, \
	{ 0xa9f2, 0, 0, 0, "SP_CS_IBO_LO" }, \
	{ 0xa9f3, 0, 0, 0, "SP_CS_IBO_HI" }, \
	{ 0xaa00, 0, 0, 0, "SP_CS_IBO_COUNT" }, \
	{ 0xab00, 0, 0, 0, "SP_MODE_CONTROL" }, \
	{ 0xab04, 0, 0, 0, "SP_FS_CONFIG" }, \
	{ 0xab05, 0, 0, 0, "SP_FS_INSTRLEN" }, \
	{ 0xab10, 2, 5, 1, "SP_BINDLESS_BASE_ADDR" }, \
	{ 0xab1a, 0, 0, 0, "SP_IBO_LO" }, \
	{ 0xab1b, 0, 0, 0, "SP_IBO_HI" }, \
	{ 0xab20, 0, 0, 0, "SP_IBO_COUNT" }, \
	{ 0xae00, 0, 0, 0, "SP_UNKNOWN_AE00" }, \
	{ 0xae01, 0, 0, 0, "SP_ADDR_MODE_CNTL" }, \
	{ 0xae02, 0, 0, 0, "SP_NC_MODE_CNTL" }, \
	{ 0xae03, 0, 0, 0, "SP_UNKNOWN_AE03" }, \
	{ 0xae04, 0, 0, 0, "SP_UNKNOWN_AE04" }, \
	{ 0xae0f, 0, 0, 0, "SP_UNKNOWN_AE0F" }, \
	{ 0xae10, 0, 0, 0, "SP_PERFCTR_SP_SEL_0" }, \
	{ 0xae11, 0, 0, 0, "SP_PERFCTR_SP_SEL_1" }, \
	{ 0xae12, 0, 0, 0, "SP_PERFCTR_SP_SEL_2" }, \
	{ 0xae13, 0, 0, 0, "SP_PERFCTR_SP_SEL_3" }, \
	{ 0xae14, 0, 0, 0, "SP_PERFCTR_SP_SEL_4" }, \
	{ 0xae15, 0, 0, 0, "SP_PERFCTR_SP_SEL_5" }, \
	{ 0xae16, 0, 0, 0, "SP_PERFCTR_SP_SEL_6" }, \
	{ 0xae17, 0, 0, 0, "SP_PERFCTR_SP_SEL_7" }, \
	{ 0xae18, 0, 0, 0, "SP_PERFCTR_SP_SEL_8" }, \
	{ 0xae19, 0, 0, 0, "SP_PERFCTR_SP_SEL_9" }, \
	{ 0xae1a, 0, 0, 0, "SP_PERFCTR_SP_SEL_10" }, \
	{ 0xae1b, 0, 0, 0, "SP_PERFCTR_SP_SEL_11" }, \
	{ 0xae1c, 0, 0, 0, "SP_PERFCTR_SP_SEL_12" }, \
	{ 0xae1d, 0, 0, 0, "SP_PERFCTR_SP_SEL_13" }, \
	{ 0xae1e, 0, 0, 0, "SP_PERFCTR_SP_SEL_14" }, \
	{ 0xae1f, 0, 0, 0, "SP_PERFCTR_SP_SEL_15" }, \
	{ 0xae20, 0, 0, 0, "SP_PERFCTR_SP_SEL_16" }, \
	{ 0xae21, 0, 0, 0, "SP_PERFCTR_SP_SEL_17" }, \
	{ 0xae22, 0, 0, 0, "SP_PERFCTR_SP_SEL_18" }, \
	{ 0xae23, 0, 0, 0, "SP_PERFCTR_SP_SEL_19" }, \
	{ 0xae24, 0, 0, 0, "SP_PERFCTR_SP_SEL_20" }, \
	{ 0xae25, 0, 0, 0, "SP_PERFCTR_SP_SEL_21" }, \
	{ 0xae26, 0, 0, 0, "SP_PERFCTR_SP_SEL_22" }, \
	{ 0xae27, 0, 0, 0, "SP_PERFCTR_SP_SEL_23" }, \
	{ 0xb180, 0, 0, 1, "SP_PS_TP_BORDER_COLOR_BASE_ADDR" }, \
	{ 0xb182, 0, 0, 0, "SP_UNKNOWN_B182" }, \
	{ 0xb183, 0, 0, 0, "SP_UNKNOWN_B183" }, \
	{ 0xb300, 0, 0, 0, "SP_TP_RAS_MSAA_CNTL" }, \
	{ 0xb301, 0, 0, 0, "SP_TP_DEST_MSAA_CNTL" }, \
	{ 0xb302, 0, 0, 1, "SP_TP_BORDER_COLOR_BASE_ADDR" }, \
	{ 0xb304, 0, 0, 0, "SP_TP_SAMPLE_CONFIG" }, \
	{ 0xb305, 0, 0, 0, "SP_TP_SAMPLE_LOCATION_0" }, \
	{ 0xb306, 0, 0, 0, "SP_TP_SAMPLE_LOCATION_1" }, \
	{ 0xb307, 0, 0, 0, "SP_TP_WINDOW_OFFSET" }, \
	{ 0xb309, 0, 0, 0, "SP_TP_UNKNOWN_B309" }, \
	{ 0xb4d1, 0, 0, 0, "SP_WINDOW_OFFSET" }, \
	{ 0xb600, 0, 0, 0, "SP_UNKNOWN_B600" }, \
	{ 0xb601, 0, 0, 0, "TPL1_ADDR_MODE_CNTL" }, \
	{ 0xb604, 0, 0, 0, "TPL1_NC_MODE_CNTL" }, \
	{ 0xb605, 0, 0, 0, "SP_UNKNOWN_B605" }, \
	{ 0xb608, 0, 0, 0, "TPL1_BICUBIC_WEIGHTS_TABLE_0" }, \
	{ 0xb609, 0, 0, 0, "TPL1_BICUBIC_WEIGHTS_TABLE_1" }, \
	{ 0xb60a, 0, 0, 0, "TPL1_BICUBIC_WEIGHTS_TABLE_2" }, \
	{ 0xb60b, 0, 0, 0, "TPL1_BICUBIC_WEIGHTS_TABLE_3" }, \
	{ 0xb60c, 0, 0, 0, "TPL1_BICUBIC_WEIGHTS_TABLE_4" }, \
	{ 0xb610, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_0" }, \
	{ 0xb611, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_1" }, \
	{ 0xb612, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_2" }, \
	{ 0xb613, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_3" }, \
	{ 0xb614, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_4" }, \
	{ 0xb615, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_5" }, \
	{ 0xb616, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_6" }, \
	{ 0xb617, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_7" }, \
	{ 0xb618, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_8" }, \
	{ 0xb619, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_9" }, \
	{ 0xb61a, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_10" }, \
	{ 0xb61b, 0, 0, 0, "TPL1_PERFCTR_TP_SEL_11" }, \
	{ 0xb800, 0, 0, 0, "HLSQ_VS_CNTL" }, \
	{ 0xb801, 0, 0, 0, "HLSQ_HS_CNTL" }, \
	{ 0xb802, 0, 0, 0, "HLSQ_DS_CNTL" }, \
	{ 0xb803, 0, 0, 0, "HLSQ_GS_CNTL" }, \
	{ 0xb820, 0, 0, 0, "HLSQ_LOAD_STATE_GEOM_CMD" }, \
	{ 0xb821, 0, 0, 1, "HLSQ_LOAD_STATE_GEOM_EXT_SRC_ADDR" }, \
	{ 0xb823, 0, 0, 0, "HLSQ_LOAD_STATE_GEOM_DATA" }, \
	{ 0xb980, 0, 0, 0, "HLSQ_UNKNOWN_B980" }, \
	{ 0xb982, 0, 0, 0, "HLSQ_CONTROL_1_REG" }, \
	{ 0xb983, 0, 0, 0, "HLSQ_CONTROL_2_REG" }, \
	{ 0xb984, 0, 0, 0, "HLSQ_CONTROL_3_REG" }, \
	{ 0xb985, 0, 0, 0, "HLSQ_CONTROL_4_REG" }, \
	{ 0xb986, 0, 0, 0, "HLSQ_CONTROL_5_REG" }, \
	{ 0xb987, 0, 0, 0, "HLSQ_CS_CNTL" }, \
	{ 0xb990, 0, 0, 0, "HLSQ_CS_NDRANGE_0" }, \
	{ 0xb991, 0, 0, 0, "HLSQ_CS_NDRANGE_1" }, \
	{ 0xb992, 0, 0, 0, "HLSQ_CS_NDRANGE_2" }, \
	{ 0xb993, 0, 0, 0, "HLSQ_CS_NDRANGE_3" }, \
	{ 0xb994, 0, 0, 0, "HLSQ_CS_NDRANGE_4" }, \
	{ 0xb995, 0, 0, 0, "HLSQ_CS_NDRANGE_5" }, \
	{ 0xb996, 0, 0, 0, "HLSQ_CS_NDRANGE_6" }, \
	{ 0xb997, 0, 0, 0, "HLSQ_CS_CNTL_0" }, \
	{ 0xb998, 0, 0, 0, "HLSQ_CS_UNKNOWN_B998" }, \
	{ 0xb999, 0, 0, 0, "HLSQ_CS_KERNEL_GROUP_X" }, \
	{ 0xb99a, 0, 0, 0, "HLSQ_CS_KERNEL_GROUP_Y" }, \
	{ 0xb99b, 0, 0, 0, "HLSQ_CS_KERNEL_GROUP_Z" }, \
	{ 0xb9a0, 0, 0, 0, "HLSQ_LOAD_STATE_FRAG_CMD" }, \
	{ 0xb9a1, 0, 0, 1, "HLSQ_LOAD_STATE_FRAG_EXT_SRC_ADDR" }, \
	{ 0xb9a3, 0, 0, 0, "HLSQ_LOAD_STATE_FRAG_DATA" }, \
	{ 0xb9c0, 2, 5, 1, "HLSQ_CS_BINDLESS_BASE_ADDR" }, \
	{ 0xbb00, 0, 0, 0, "HLSQ_DRAW_CMD" }, \
	{ 0xbb01, 0, 0, 0, "HLSQ_DISPATCH_CMD" }, \
	{ 0xbb02, 0, 0, 0, "HLSQ_EVENT_CMD" }, \
	{ 0xbb08, 0, 0, 0, "HLSQ_INVALIDATE_CMD" }, \
	{ 0xbb10, 0, 0, 0, "HLSQ_FS_CNTL" }, \
	{ 0xbb11, 0, 0, 0, "HLSQ_SHARED_CONSTS" }, \
	{ 0xbb20, 2, 5, 1, "HLSQ_BINDLESS_BASE_ADDR" }, \
	{ 0xbd80, 0, 0, 0, "HLSQ_2D_EVENT_CMD" }, \
	{ 0xbe00, 0, 0, 0, "HLSQ_UNKNOWN_BE00" }, \
	{ 0xbe01, 0, 0, 0, "HLSQ_UNKNOWN_BE01" }, \
	{ 0xbe04, 0, 0, 0, "HLSQ_UNKNOWN_BE04" }, \
	{ 0xbe05, 0, 0, 0, "HLSQ_ADDR_MODE_CNTL" }, \
	{ 0xbe10, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_0" }, \
	{ 0xbe11, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_1" }, \
	{ 0xbe12, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_2" }, \
	{ 0xbe13, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_3" }, \
	{ 0xbe14, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_4" }, \
	{ 0xbe15, 0, 0, 0, "HLSQ_PERFCTR_HLSQ_SEL_5" }, \
	{ 0xd600, 0, 0, 0, "CP_EVENT_START" }, \
	{ 0xd601, 0, 0, 0, "CP_EVENT_END" }, \
	{ 0xd700, 0, 0, 0, "CP_2D_EVENT_START" }, \
	{ 0xd701, 0, 0, 0, "CP_2D_EVENT_END" },

/* Writes s, then "_HI" when hi, then "(index)" when array, into buf (>= 48 bytes). */
static inline const char *a6xx_reg_name_format(const char *s, bool hi, bool array, uint32_t index, char *buf,
						unsigned buf_len)
{
	unsigned n = 0;
	while (*s && n < buf_len - 9)
		buf[n++] = *s++;
	if (hi) {
		buf[n++] = '_';
		buf[n++] = 'H';
		buf[n++] = 'I';
	}
	if (array) {
		buf[n++] = '(';
		if (index >= 10)
			buf[n++] = (char)('0' + index / 10 % 10);
		buf[n++] = (char)('0' + index % 10);
		buf[n++] = ')';
	}
	buf[n] = '\0';
	return buf;
}

/* The A6XX_REG_NAME_ENTRIES name of a register (formatted into buf, >= 48 bytes), or NULL. */
static inline const char *a6xx_reg_name_more(uint32_t offset, char *buf, unsigned buf_len)
{
	static const struct a6xx_reg_name_entry entries[] = { A6XX_REG_NAME_ENTRIES };
	if (!buf || buf_len < 48)
		return NULL;
	for (unsigned i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		const struct a6xx_reg_name_entry *e = &entries[i];
		if (offset < e->offset)
			continue;
		uint32_t d = offset - e->offset;
		uint32_t index = e->stride ? d / e->stride : 0;
		uint32_t within = e->stride ? d % e->stride : d;
		if ((e->stride && index >= e->count) || within > e->is64)
			continue;
		return a6xx_reg_name_format(e->name, within == 1, e->stride != 0, index, buf, buf_len);
	}
	return NULL;
}

/* Name of a register, or NULL if not in this table or A6XX_REG_NAME_ENTRIES. Array members are
 * formatted into buf as "CP_SCRATCH_REG(3)" and the high halves of 64-bit registers get "_HI";
 * buf_len >= 48 (the longest names). A static inline because this header is the only part of the
 * table that protocol/ carries. */
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
	const char *more = a6xx_reg_name_more(offset, buf, buf_len);
	if (more)
		return more;
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
