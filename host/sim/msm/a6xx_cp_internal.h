/* Shared by the CP model's files (a6xx_cp.c: the fetch loop and memory access; a6xx_cp_packets.c:
 * memory, register and wait packets; a6xx_cp_draw.c: draw state, render mode and draws). Not API. */
#ifndef FERRY_SIM_A6XX_CP_INTERNAL_H
#define FERRY_SIM_A6XX_CP_INTERNAL_H

#include "a6xx_cp.h"
#include "ferry/hw/addr64.h"

/* The packet being executed. */
struct pkt {
	struct cp_frame *frame;
	uint32_t header;
	uint32_t count; /* payload dwords */
	uint32_t opcode; /* type-7 opcode, or CP_OPCODE_TYPE4 */
};
/* pkt.opcode of a type-4 packet: past every type-7 opcode. */
#define CP_OPCODE_TYPE4 (PM4_TYPE7_OPCODE_MASK + 1u)

/* What a packet handler returns besides DONE/WAIT/BUDGET/FAULT: the handler moved the CP
 * itself (pushed/replaced a frame, or skipped dwords), so the loop must not advance past it. */
#define CP_RESULT_MOVED ((enum cp_result)100)

enum cp_result cp_opcode_fault(struct cp_exec *x, const struct pkt *p, const char *reason);
/* The packet's work (of enum sim_unmodeled_kind, what: its static name) is not executed: counted
 * in the submit; in strict mode a kind that fails strict stops the submit with CP_FAULT_UNMODELED
 * (CP_RESULT_FAULT), else CP_RESULT_DONE. */
enum cp_result cp_unmodeled(struct cp_device *cp, struct cp_exec *x, const struct pkt *p, unsigned kind,
			    const char *what);
/* Memory access through the address space; false after recording a pagefault. */
bool cp_mem_read(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, void *dst,
		 uint64_t len);
bool cp_mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		  const void *src, uint64_t len);
/* Checks that [iova, iova + len) is readable without copying it (index fetch). */
bool cp_mem_touch(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, uint64_t len);
/* The same for reads or writes, touching nothing: a packet checks everything it will access first
 * when a fault must leave memory untouched. */
bool cp_mem_probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, uint64_t len,
		  bool write);
/* A dword another agent may be writing: read atomically when aligned. */
bool cp_mem_poll32(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		   uint32_t *out);
/* Payload dwords [first, first + n) of the current packet. */
bool cp_payload(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t first, uint32_t n,
		uint32_t *dst);
void cp_reg_write(struct cp_device *cp, uint32_t reg, uint32_t val);
/* Pushes a frame on x (depth checked by the caller). */
void cp_push_frame(struct cp_exec *x, enum cp_frame_kind kind, uint64_t base, uint32_t size, unsigned group);

/* a6xx_cp_packets.c */
enum cp_result cp_exec_mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t *cost);
enum cp_result cp_exec_event_write(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				   const struct pkt *p, uint32_t *cost);
enum cp_result cp_exec_reg_to_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				  const struct pkt *p, uint32_t *cost);
enum cp_result cp_exec_mem_to_reg(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				  const struct pkt *p, uint32_t *cost);
enum cp_result cp_exec_memcpy(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t budget,
			      uint32_t *cost);
enum cp_result cp_exec_mem_to_mem(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p);
enum cp_result cp_exec_wait_reg_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				    const struct pkt *p);
enum cp_result cp_exec_wait_mem_gte(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p);
enum cp_result cp_exec_reg_rmw(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			       const struct pkt *p);
enum cp_result cp_exec_reg_test(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				const struct pkt *p);
enum cp_result cp_exec_cond_reg_exec(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				     const struct pkt *p);
enum cp_result cp_exec_skip_ib2_enable(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p);

/* a6xx_cp_surface.c: NULL after setting up s, else why the surface is not modeled. flag_pitch in
 * bytes; flags and flag_pitch only matter for UBWC. */
const char *cp_surf_init(struct cp_surf *s, uint32_t tile_mode, bool ubwc, uint64_t base, uint64_t pitch,
			 uint32_t cpp, uint64_t flags, uint64_t flag_pitch);
/* The iova of texel (x, y). */
uint64_t cp_surf_texel(const struct cp_surf *s, uint32_t x, uint32_t y);
/* The rectangle (w, h >= 1) would run past the end of the address space. */
bool cp_surf_wraps(const struct cp_surf *s, uint32_t x, uint32_t y, uint32_t w, uint32_t h);
/* Checks every byte the rectangle can touch (data and flags) without touching it. */
bool cp_surf_probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
		   uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool write);
/* UBWC: 1 when every block the rectangle touches holds data the model wrote (or, with
 * overwrite, is written over entirely), 0 when one holds a flag the model did not write
 * (compressed: unmodeled), -1 after a fault. 1 for other surfaces. */
int cp_surf_flags_check(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
			uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool overwrite);
/* UBWC: marks the blocks row y of [x0, x0 + w) touches as stored uncompressed. */
bool cp_surf_flags_mark(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
			uint32_t x0, uint32_t y, uint32_t w);

/* a6xx_cp_blit.c: CP_BLIT (the 2D engine). */
enum cp_result cp_exec_blit(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x, const struct pkt *p,
			    uint32_t budget, uint32_t *cost);
/* The submit's own 2D and GMEM blit register state around each slice (cp_run): restored at its
 * start when the submit ran before, saved at its end. */
void cp_blit_state_restore(struct cp_device *cp, const struct cp_exec *x);
void cp_blit_state_save(const struct cp_device *cp, struct cp_exec *x);

/* a6xx_cp_blit.c: format facts. The texel size of an a6xx_format the 2D model knows, else 0. */
uint32_t cp_format_cpp(uint32_t fmt);
/* For a format of 3 or 4 equal byte-sized channels, the bytes of one channel (what a WZYX <->
 * WXYZ swap exchanges between R and B); 0 for others. */
uint32_t cp_format_swap_rb_bytes(uint32_t fmt);
/* A format of equal byte-sized channels (D24S8 counts as four bytes): how many, how wide. */
bool cp_format_channels(uint32_t fmt, uint32_t *channels, uint32_t *channel_bytes);
void cp_texel_swap_rb(uint8_t *texel, uint32_t channel_bytes);
/* FMT6_Z24_UNORM_S8_UINT or its _AS_R8G8B8A8 form: depth in bytes 0-2, stencil in byte 3. */
bool cp_is_d24s8(uint32_t fmt);

/* a6xx_cp_gmem.c: CP_EVENT_WRITE(BLIT) - a GMEM clear, load or store from RB_BLIT_* registers. */
enum cp_result cp_exec_gmem_blit(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				 const struct pkt *p, uint32_t *cost);

/* a6xx_cp_draw.c */
enum cp_result cp_exec_set_marker(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p);
enum cp_result cp_exec_set_draw_state(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				      const struct pkt *p);
/* Every draw packet: first runs the pending draw-state groups of the render mode (one frame
 * at a time: returns CP_RESULT_MOVED after pushing one), then the draw itself. */
enum cp_result cp_exec_draw(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			    const struct pkt *p, uint32_t budget, uint32_t *cost);

#endif
