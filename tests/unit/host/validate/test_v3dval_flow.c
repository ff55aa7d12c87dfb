/* V3D validator control flow on 4.2 and 7.1: branches across BOs, branch cycles (back-edges,
 * self-branches, forward into walked code), sub-lists (reuse, cycles, nesting, RETURN without a
 * call), generic tile lists, lists that do not end (off their BO, straddling their end, no
 * END_OF_RENDERING), HALT, unreadable targets and the work limits. */
#include "v3dval_harness.h"

#define CL 0x00100000u   /* 64 KiB */
#define CL2 0x00110000u  /* 4 KiB, readable */
#define NOMAP 0x00120000u /* 4 KiB the host cannot read */
#define DATA 0x00200000u

static void setup(struct harness *h, int ver)
{
	h_init(h, ver);
	h_bo(h, CL, 0x10000);
	h_bo(h, CL2, 0x1000);
	h_bo_ex(h, NOMAP, 0x1000, false);
	h_bo(h, DATA, 0x10000);
}

static struct h_job rcl_job(const struct v3d_clb *b, uint32_t start)
{
	return (struct h_job){ .rcl_start = start, .rcl_end = v3d_clb_gpu_addr(b) };
}

static void test_branch_chain(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		/* CL: config, branch to CL2; CL2: END_OF_RENDERING (the list's end is in CL2) */
		struct v3d_clb a, b;
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch(&a, CL2 + 0x100);
		h_clb(&h, &b, CL2 + 0x100, 0x100);
		h_rcl_end(&b);
		struct h_job j = rcl_job(&b, CL);
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_segments, 2);
		/* the branch in the first shadow points at the second shadow, whose end is the list's */
		uint8_t *s0 = h_shadow_ptr(&h, h.res.rcl_start);
		uint32_t target = v3d_cl_get_address(s0 + a.len - 5 + 1, V3D_CL_BRANCH_ADDRESS);
		CHECK(h_shadow_at(&h, target) != NULL && target != CL2 + 0x100);
		CHECK_EQ(h.res.rcl_end, target + 1);
		CHECK_EQ(*h_shadow_ptr(&h, target), V3D_CL_END_OF_RENDERING);
		/* a branch to memory the host cannot read, or outside the context */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch(&a, NOMAP);
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, "Branch at render list");
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch(&a, 0xfffffff0u);
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, "list 0xfffffff0");
		/* the list's start itself */
		j.rcl_start = NOMAP;
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, NULL);
		h_fini(&h);
	}
}

static void test_branch_cycles(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb a;
		/* back to the list's start */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch(&a, CL);
		struct h_job j = { .rcl_start = CL, .rcl_end = CL + 0x800 };
		H_REJECT(&h, &j, V3DVAL_ERR_CYCLE, "target 0x00100000 already walked");
		/* to itself */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch(&a, v3d_clb_gpu_addr(&a));
		H_REJECT(&h, &j, V3DVAL_ERR_CYCLE, NULL);
		/* A -> B -> back into the middle of A */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		uint32_t mid = v3d_clb_gpu_addr(&a);
		v3d_clb_op(&a, V3D_CL_NOP);
		v3d_clb_branch(&a, CL2);
		struct v3d_clb b;
		h_clb(&h, &b, CL2, 0x100);
		v3d_clb_branch(&b, mid);
		H_REJECT(&h, &j, V3DVAL_ERR_CYCLE, "Branch at render list 0x00110000");
		h_fini(&h);
	}
}

static void test_sub_lists(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb a, s;
		h_clb(&h, &s, CL2, 0x100);
		v3d_clb_op(&s, V3D_CL_FLUSH_VCD_CACHE);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		/* the same sub-list called twice: walked once, one shadow */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch_to_sub_list(&a, CL2);
		v3d_clb_branch_to_sub_list(&a, CL2);
		h_rcl_end(&a);
		struct h_job j = rcl_job(&a, CL);
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_segments, 2);
		uint8_t *s0 = h_shadow_ptr(&h, h.res.rcl_start);
		uint32_t t1 = v3d_cl_get_address(s0 + 18 + 1, V3D_CL_BRANCH_ADDRESS);
		uint32_t t2 = v3d_cl_get_address(s0 + 23 + 1, V3D_CL_BRANCH_ADDRESS);
		CHECK_EQ(t1, t2);
		CHECK(memcmp(h_shadow_ptr(&h, t1), h_ptr(&h, CL2), 2) == 0);
		/* RETURN at top level */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_op(&a, V3D_CL_RETURN_FROM_SUB_LIST);
		h_rcl_end(&a);
		H_REJECT(&h, &j, V3DVAL_ERR_NESTING, "Return from sub-list with no sub-list");
		/* a sub-list calling itself (a sub-list cycle, and a call inside a call) */
		h_clb(&h, &s, CL2, 0x100);
		v3d_clb_branch_to_sub_list(&s, CL2);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch_to_sub_list(&a, CL2);
		h_rcl_end(&a);
		H_REJECT(&h, &j, V3DVAL_ERR_NESTING, "Branch to Sub-list at render sub-list 0x00110000");
		/* a sub-list branching back into its caller */
		h_clb(&h, &s, CL2, 0x100);
		v3d_clb_branch(&s, CL);
		H_REJECT(&h, &j, V3DVAL_ERR_CYCLE, "Branch at render sub-list");
		/* a sub-list call into the middle of the top-level list */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch_to_sub_list(&a, CL + 9);
		h_rcl_end(&a);
		H_REJECT(&h, &j, V3DVAL_ERR_CYCLE, NULL);
		/* a sub-list running off the end of its BO without RETURN */
		h_clb(&h, &s, CL2, 0x1000);
		for (int i = 0; i < 0x1000; i++)
			v3d_clb_op(&s, V3D_CL_NOP);
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_branch_to_sub_list(&a, CL2);
		h_rcl_end(&a);
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, "runs off the end of its buffer");
		h_fini(&h);
	}
}

static void test_list_end(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb a;
		/* NOPs to the end of the BO, the end address beyond it */
		h_clb(&h, &a, CL2, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		while (a.len < 0x1000)
			v3d_clb_op(&a, V3D_CL_NOP);
		struct h_job j = { .rcl_start = CL2, .rcl_end = CL2 + 0x2000 };
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, NULL);
		/* a packet running past its BO's end */
		h_clb(&h, &a, CL2, 0x1000);
		while (a.len < 0x1000 - 2)
			v3d_clb_op(&a, V3D_CL_NOP);
		h_ptr(&h, CL2)[0x1000 - 2] = V3D_CL_BRANCH; /* 5 bytes, 2 left */
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, "packet of 5 bytes runs past the end of its buffer");
		/* a packet straddling the end address */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_op(&a, V3D_CL_END_OF_RENDERING);
		j = (struct h_job){ .rcl_start = CL, .rcl_end = CL + 4 };
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, "straddles the list's end address 0x00100004");
		/* no END_OF_RENDERING before the end */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_op(&a, V3D_CL_NOP);
		j = rcl_job(&a, CL);
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, "render list ends without End of rendering");
		h.policy.require_end_of_rendering = false;
		h_set_policy(&h);
		H_ACCEPT(&h, &j);
		h.policy.require_end_of_rendering = true;
		h_set_policy(&h);
		/* HALT ends the list before its end address; the shadow end follows the HALT */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		h_rcl_end(&a);
		v3d_clb_op(&a, V3D_CL_HALT);
		j = (struct h_job){ .rcl_start = CL, .rcl_end = CL + 0x800 };
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.rcl_end - h.res.rcl_start, a.len);
		/* the bin list ends at its end address (v3dv's ends with FLUSH) */
		struct v3d_clb bin;
		h_clb(&h, &bin, CL + 0x2000, 0x1000);
		v3d_clb_op(&bin, V3D_CL_FLUSH);
		v3d_clb_op(&bin, V3D_CL_NOP); /* after the end: not walked */
		j = (struct h_job){ .bcl_start = CL + 0x2000, .bcl_end = CL + 0x2001, .rcl_start = CL, .rcl_end = CL + 0x800 };
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.bcl_end - h.res.bcl_start, 1);
		h_fini(&h);
	}
}

static void test_generic_tile_list(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb a, t;
		h_clb(&h, &t, CL2, 0x100);
		v3d_clb_op(&t, V3D_CL_TILE_COORDINATES_IMPLICIT);
		v3d_clb_op(&t, V3D_CL_END_OF_LOADS);
		h_ls(&t, true, DATA, 64);
		v3d_clb_op(&t, V3D_CL_END_OF_TILE_MARKER);
		uint32_t gend = v3d_clb_gpu_addr(&t); /* ends at its end address, no RETURN */
		h_clb(&h, &a, CL, 0x1000);
		h_rcl_begin(&h, &a, 16, 16);
		v3d_clb_generic_tile_list(&a, CL2, gend);
		v3d_clb_supertile_coordinates(&a, 0, 0);
		h_rcl_end(&a);
		struct h_job j = rcl_job(&a, CL);
		H_ACCEPT(&h, &j);
		uint8_t *pkt = h_shadow_ptr(&h, h.res.rcl_start) + 18;
		CHECK_EQ(pkt[0], V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST);
		uint32_t s = v3d_cl_get_address(pkt + 1, V3D_CL_GENERIC_TILE_LIST_START);
		uint32_t e = v3d_cl_get_address(pkt + 1, V3D_CL_GENERIC_TILE_LIST_END);
		CHECK(h_shadow_at(&h, s) != NULL);
		CHECK_EQ(e - s, gend - CL2);
		CHECK(memcmp(h_shadow_ptr(&h, s), h_ptr(&h, CL2), gend - CL2) == 0);
		/* its store is checked like any other */
		h_clb(&h, &t, CL2, 0x100);
		v3d_clb_op(&t, V3D_CL_TILE_COORDINATES_IMPLICIT);
		h_ls(&t, true, DATA + 0x10000 - 512, 64);
		v3d_clb_op(&t, V3D_CL_RETURN_FROM_SUB_LIST);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Store Tile Buffer General at generic tile list 0x00110001");
		/* the end address in the middle of a packet */
		h_clb(&h, &t, CL2, 0x100);
		v3d_clb_op(&t, V3D_CL_TILE_COORDINATES_IMPLICIT);
		h_ls(&t, true, DATA, 64);
		v3d_clb_op(&t, V3D_CL_END_OF_LOADS);
		h_ls(&t, true, DATA, 64); /* bytes 15..27, the end address is 16 */
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, "straddles");
		h_fini(&h);
	}
}

static void test_limits(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb a;
		h_clb(&h, &a, CL, 0x10000);
		h_rcl_begin(&h, &a, 16, 16);
		for (int i = 0; i < 1000; i++)
			v3d_clb_op(&a, V3D_CL_NOP);
		h_rcl_end(&a);
		struct h_job j = rcl_job(&a, CL);
		H_ACCEPT(&h, &j);
		h.policy.max_walk_bytes = 500;
		h_set_policy(&h);
		H_REJECT(&h, &j, V3DVAL_ERR_LIMIT, "more than 500 list bytes");
		/* a chain of branches, one segment each */
		v3dval_policy_default(&h.policy, ver);
		h.policy.max_segments = 8;
		h_set_policy(&h);
		h_clb(&h, &a, CL, 0x10000);
		h_rcl_begin(&h, &a, 16, 16);
		for (int i = 1; i <= 10; i++)
			v3d_clb_branch(&a, v3d_clb_gpu_addr(&a) + 5);
		h_rcl_end(&a);
		j = rcl_job(&a, CL);
		H_REJECT(&h, &j, V3DVAL_ERR_LIMIT, "more than 8 list segments");
		h.policy.max_segments = 16;
		h_set_policy(&h);
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_segments, 11);
		/* the allocator failing, or handing out a misaligned shadow */
		h.fail_alloc_at = 3;
		H_REJECT(&h, &j, V3DVAL_ERR_SHADOW, "shadow allocation");
		h.fail_alloc_at = 0;
		h.misalign = 16;
		H_REJECT(&h, &j, V3DVAL_ERR_SHADOW, "misaligned");
		h.misalign = 0;
		H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

int main(void)
{
	RUN_TEST(test_branch_chain);
	RUN_TEST(test_branch_cycles);
	RUN_TEST(test_sub_lists);
	RUN_TEST(test_list_end);
	RUN_TEST(test_generic_tile_list);
	RUN_TEST(test_limits);
	return test_finish();
}
