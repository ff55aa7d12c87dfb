/* The simulated CLE packet by packet: control packets, branches, sub-lists and their depth,
 * cycles bounded by the budget, semaphores between a bin and a render list, unknown opcodes,
 * MMU faults with their location, and the read-ahead fault. Both V3D versions. */
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "v3d_cl_builder.h"
#include "v3d_fake_mem.h"

#define CL_ADDR 0x00100000u
#define CL_SIZE 0x4000u  /* >= the 7.1 read-ahead past anything the tests emit */
#define SUB_ADDR 0x00200000u

static struct fake_mem mem;
static struct v3d_cle_mem iface;
static uint8_t *cl, *sub;

static void setup(void)
{
	memset(&mem, 0, sizeof(mem));
	cl = fake_bo_add(&mem, CL_ADDR, CL_SIZE);
	sub = fake_bo_add(&mem, SUB_ADDR, CL_SIZE);
	iface = fake_mem_iface(&mem);
}

static void teardown(void) { fake_mem_free(&mem); }

static void test_control_packets(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		setup();
		struct v3d_clb b;
		v3d_clb_init(&b, ver, cl, CL_SIZE, CL_ADDR);
		const uint8_t ops[] = { V3D_CL_NOP, V3D_CL_FLUSH_ALL_STATE, V3D_CL_WAIT_FOR_PREVIOUS_FRAME,
					V3D_CL_FLUSH_VCD_CACHE, V3D_CL_END_OF_RENDERING, V3D_CL_FLUSH };
		for (unsigned i = 0; i < sizeof(ops); i++)
			v3d_clb_op(&b, ops[i]);
		v3d_clb_vertex_array_prims(&b, 4, 3, 0); /* a draw in a render list: recorded */
		uint32_t end = v3d_clb_gpu_addr(&b);
		REQUIRE(v3d_clb_ok(&b));

		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);
		CHECK_EQ(v3d_cle_version(cle), ver);
		v3d_cle_start(cle, V3D_CLE_RENDER, CL_ADDR, end, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		const struct v3d_cle_stats *s = v3d_cle_stats(cle);
		CHECK_EQ(s->packets, sizeof(ops) + 1);
		CHECK_EQ(s->by_opcode[V3D_CL_NOP], 1);
		CHECK_EQ(s->by_opcode[V3D_CL_END_OF_RENDERING], 1);
		CHECK_EQ(s->recorded[V3D_CL_VERTEX_ARRAY_PRIMS], 1);
		CHECK_EQ(s->current_addr, end);
		CHECK_EQ(s->last_packet_count, sizeof(ops) + 1);
		CHECK(v3d_cle_fault(cle) == NULL);
		/* once done, it stays done */
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);

		/* the same draw in a bin list is a draw */
		v3d_cle_reset_stats(cle);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, end, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(s->draws, 1);

		/* HALT stops before the end address */
		v3d_clb_init(&b, ver, cl, CL_SIZE, CL_ADDR);
		v3d_clb_op(&b, V3D_CL_NOP);
		v3d_clb_op(&b, V3D_CL_HALT);
		v3d_clb_op(&b, V3D_CL_NOP);
		v3d_cle_reset_stats(cle);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, v3d_clb_gpu_addr(&b), NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(s->packets, 2);

		/* budget: one packet per call yields until the end */
		v3d_cle_reset_stats(cle);
		v3d_cle_start(cle, V3D_CLE_RENDER, CL_ADDR, CL_ADDR + 3, NULL, NULL);
		memset(cl, V3D_CL_NOP, 3);
		CHECK_EQ(v3d_cle_run(cle, &iface, 1), V3D_CLE_YIELD);
		CHECK_EQ(v3d_cle_run(cle, &iface, 1), V3D_CLE_YIELD);
		CHECK_EQ(v3d_cle_run(cle, &iface, 1), V3D_CLE_YIELD);
		CHECK_EQ(v3d_cle_run(cle, &iface, 1), V3D_CLE_DONE);
		CHECK_EQ(s->packets, 3);
		v3d_cle_destroy(cle);
		teardown();
	}
}

static void test_branch_and_sub_lists(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		setup();
		struct v3d_clb b, sb;
		v3d_clb_init(&b, ver, cl, CL_SIZE, CL_ADDR);
		v3d_clb_init(&sb, ver, sub, CL_SIZE, SUB_ADDR);
		/* main: call sub, branch over garbage, end */
		v3d_clb_branch_to_sub_list(&b, SUB_ADDR);
		uint32_t branch_at = v3d_clb_gpu_addr(&b);
		v3d_clb_branch(&b, branch_at + 5 + 3);
		uint8_t garbage[3] = { 0xff, 0xff, 0xff };
		v3d_clb_raw(&b, garbage, 3);
		v3d_clb_op(&b, V3D_CL_NOP);
		uint32_t end = v3d_clb_gpu_addr(&b);
		v3d_clb_op(&sb, V3D_CL_NOP);
		v3d_clb_op(&sb, V3D_CL_RETURN_FROM_SUB_LIST);
		REQUIRE(v3d_clb_ok(&b) && v3d_clb_ok(&sb));

		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, end, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		const struct v3d_cle_stats *s = v3d_cle_stats(cle);
		CHECK_EQ(s->packets, 5); /* call, nop, return, branch, nop */
		CHECK_EQ(s->by_opcode[V3D_CL_RETURN_FROM_SUB_LIST], 1);

		/* a sub-list calling a sub-list: the CLE has one return register */
		v3d_clb_init(&sb, ver, sub, CL_SIZE, SUB_ADDR);
		v3d_clb_branch_to_sub_list(&sb, SUB_ADDR + 0x100);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, end, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		const struct v3d_cle_fault *f = v3d_cle_fault(cle);
		REQUIRE(f);
		CHECK_EQ(f->packet_addr, SUB_ADDR);
		CHECK_EQ(f->opcode, V3D_CL_BRANCH_TO_SUB_LIST);

		/* a return with nothing to return to */
		cl[0] = V3D_CL_RETURN_FROM_SUB_LIST;
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, CL_ADDR + 1, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		CHECK_EQ(v3d_cle_fault(cle)->opcode, V3D_CL_RETURN_FROM_SUB_LIST);
		v3d_cle_destroy(cle);
		teardown();
	}
}

static void test_cycle_is_bounded(void)
{
	setup();
	struct v3d_clb b;
	v3d_clb_init(&b, 42, cl, CL_SIZE, CL_ADDR);
	v3d_clb_op(&b, V3D_CL_NOP);
	v3d_clb_branch(&b, CL_ADDR); /* loops forever */
	struct v3d_cle *cle = v3d_cle_create(42);
	REQUIRE(cle);
	v3d_cle_start(cle, V3D_CLE_RENDER, CL_ADDR, v3d_clb_gpu_addr(&b), NULL, NULL);
	for (int i = 0; i < 50; i++)
		CHECK_EQ(v3d_cle_run(cle, &iface, 1000), V3D_CLE_YIELD);
	CHECK_EQ(v3d_cle_stats(cle)->packets, 50000);
	uint32_t where = v3d_cle_stats(cle)->current_addr;
	CHECK(where == CL_ADDR || where == CL_ADDR + 1);
	/* budget 0 still makes progress (one packet) */
	CHECK_EQ(v3d_cle_run(cle, &iface, 0), V3D_CLE_YIELD);
	CHECK_EQ(v3d_cle_stats(cle)->packets, 50001);
	v3d_cle_destroy(cle);
	teardown();
}

static void test_semaphores(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		setup();
		struct v3d_clb bin, rnd;
		v3d_clb_init(&bin, ver, cl, 0x100, CL_ADDR);
		v3d_clb_op(&bin, V3D_CL_INCREMENT_SEMAPHORE);
		v3d_clb_op(&bin, V3D_CL_FLUSH);
		v3d_clb_init(&rnd, ver, sub, CL_SIZE, SUB_ADDR);
		v3d_clb_op(&rnd, V3D_CL_WAIT_ON_SEMAPHORE);
		v3d_clb_op(&rnd, V3D_CL_NOP);
		v3d_clb_op(&rnd, V3D_CL_END_OF_RENDERING);

		struct v3d_cle *bcle = v3d_cle_create(ver), *rcle = v3d_cle_create(ver);
		REQUIRE(bcle && rcle);
		struct v3d_cle_semaphore sem = { 0 };
		v3d_cle_start(rcle, V3D_CLE_RENDER, SUB_ADDR, v3d_clb_gpu_addr(&rnd), NULL, &sem);
		v3d_cle_start(bcle, V3D_CLE_BIN, CL_ADDR, v3d_clb_gpu_addr(&bin), NULL, &sem);
		/* render first: it waits, without executing the wait, however often it is run */
		CHECK_EQ(v3d_cle_run(rcle, &iface, 100), V3D_CLE_WAIT_SEMAPHORE);
		CHECK_EQ(v3d_cle_run(rcle, &iface, 100), V3D_CLE_WAIT_SEMAPHORE);
		CHECK_EQ(v3d_cle_stats(rcle)->packets, 0);
		CHECK_EQ(v3d_cle_stats(rcle)->current_addr, SUB_ADDR);
		CHECK_EQ(v3d_cle_run(bcle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(sem.count, 1);
		CHECK_EQ(v3d_cle_run(rcle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(sem.count, 0);
		CHECK_EQ(v3d_cle_stats(rcle)->packets, 3);
		/* a second render of the same job would wait again */
		v3d_cle_start(rcle, V3D_CLE_RENDER, SUB_ADDR, v3d_clb_gpu_addr(&rnd), NULL, &sem);
		CHECK_EQ(v3d_cle_run(rcle, &iface, 100), V3D_CLE_WAIT_SEMAPHORE);
		v3d_cle_destroy(bcle);
		v3d_cle_destroy(rcle);
		teardown();
	}
}

static void test_unknown_opcode(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		setup();
		cl[0] = V3D_CL_NOP;
		cl[1] = 24; /* not a V3D opcode */
		cl[2] = V3D_CL_NOP;
		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, CL_ADDR + 3, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		const struct v3d_cle_fault *f = v3d_cle_fault(cle);
		REQUIRE(f);
		CHECK_EQ(f->packet_addr, CL_ADDR + 1);
		CHECK_EQ(f->opcode, 24);
		CHECK(strcmp(f->what, "unknown opcode") == 0);
		CHECK_EQ(v3d_cle_stats(cle)->unknown[24], 1);
		/* an opcode of the other version is unknown too */
		cl[1] = V3D_CL_DEPTH_BOUNDS_TEST_LIMITS;
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, CL_ADDR + 3, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), ver == 42 ? V3D_CLE_ERROR : V3D_CLE_DONE); /* 7.1: a 9-byte packet, then HALT */
		/* the error is sticky until the next start */
		if (ver == 42)
			CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		v3d_cle_destroy(cle);
		teardown();
	}
}

static void test_faults(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		setup();
		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);

		/* a branch out of every BO: the fetch faults at the target */
		struct v3d_clb b;
		v3d_clb_init(&b, ver, cl, CL_SIZE, CL_ADDR);
		v3d_clb_branch(&b, 0x00800000);
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, CL_ADDR + 5, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_FAULT);
		const struct v3d_cle_fault *f = v3d_cle_fault(cle);
		REQUIRE(f);
		CHECK_EQ(f->addr, 0x00800000);
		CHECK(!f->write);
		CHECK_EQ(f->packet_addr, 0x00800000);
		CHECK(strcmp(f->what, "CL fetch") == 0);

		/* a list starting outside memory */
		v3d_cle_start(cle, V3D_CLE_RENDER, 0x00900000, 0x00900010, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_FAULT);
		CHECK_EQ(v3d_cle_fault(cle)->addr, 0x00900000);

		/* the bin list's PTB writes go to qma: outside memory they fault as writes */
		v3d_clb_init(&b, ver, cl, CL_SIZE, CL_ADDR);
		struct v3d_clb_binning cfg = { .width = 64, .height = 64, .num_rts = 1, .tile_w = 64, .tile_h = 64 };
		v3d_clb_tile_binning_mode_cfg(&b, &cfg);
		v3d_clb_op(&b, V3D_CL_START_TILE_BINNING);
		uint32_t flush_at = v3d_clb_gpu_addr(&b);
		v3d_clb_op(&b, V3D_CL_FLUSH);
		REQUIRE(v3d_clb_ok(&b));
		struct v3d_cle_bin_regs regs = { .qma = 0x00a00000, .qms = 4096 };
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, v3d_clb_gpu_addr(&b), &regs, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_FAULT);
		f = v3d_cle_fault(cle);
		CHECK_EQ(f->addr, 0x00a00000);
		CHECK(f->write);
		CHECK_EQ(f->packet_addr, flush_at);
		CHECK_EQ(f->opcode, V3D_CL_FLUSH);
		/* ...and inside it they terminate the tile list */
		regs.qma = SUB_ADDR;
		sub[0] = 0;
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, v3d_clb_gpu_addr(&b), &regs, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(sub[0], V3D_CL_RETURN_FROM_SUB_LIST);
		/* ...and with too little tile allocation memory the list errs */
		regs.qms = 32;
		v3d_cle_start(cle, V3D_CLE_BIN, CL_ADDR, v3d_clb_gpu_addr(&b), &regs, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		v3d_cle_destroy(cle);
		teardown();
	}
}

/* A list whose last packet sits closer to the end of its BO than the read-ahead faults, like the
 * hardware prefetcher would; with the read-ahead mapped it runs. */
static void test_readahead(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		memset(&mem, 0, sizeof(mem));
		uint32_t ra = v3d_cle_readahead(ver);
		uint32_t bo_size = 2 * 4096;
		uint8_t *p = fake_bo_add(&mem, CL_ADDR, bo_size);
		iface = fake_mem_iface(&mem);
		uint32_t start = CL_ADDR + bo_size - ra + 8; /* 8 bytes short of the read-ahead */
		memset(p + (start - CL_ADDR), V3D_CL_NOP, 4);
		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);
		v3d_cle_start(cle, V3D_CLE_RENDER, start, start + 4, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_FAULT);
		const struct v3d_cle_fault *f = v3d_cle_fault(cle);
		REQUIRE(f);
		CHECK_EQ(f->addr, CL_ADDR + bo_size); /* the first unmapped page */
		CHECK_EQ(f->packet_addr, start);
		CHECK_EQ(f->opcode, V3D_CL_NOP);
		CHECK(strcmp(f->what, "CL read-ahead") == 0);

		/* the same list with the read-ahead inside the BO runs */
		uint32_t ok_start = CL_ADDR + bo_size - ra - 4;
		memset(p + (ok_start - CL_ADDR), V3D_CL_NOP, 4);
		v3d_cle_start(cle, V3D_CLE_RENDER, ok_start, ok_start + 4, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);

		/* a read-ahead spanning into an adjacent BO is fine: translation is per page */
		fake_bo_add(&mem, CL_ADDR + bo_size, 4096);
		v3d_cle_start(cle, V3D_CLE_RENDER, start, start + 4, NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		v3d_cle_destroy(cle);
		fake_mem_free(&mem);
	}
}

static void test_create(void)
{
	CHECK(v3d_cle_create(41) == NULL);
	CHECK(v3d_cle_create(0) == NULL);
	v3d_cle_destroy(NULL);
}

int main(void)
{
	RUN_TEST(test_create);
	RUN_TEST(test_control_packets);
	RUN_TEST(test_branch_and_sub_lists);
	RUN_TEST(test_cycle_is_bounded);
	RUN_TEST(test_semaphores);
	RUN_TEST(test_unknown_opcode);
	RUN_TEST(test_faults);
	RUN_TEST(test_readahead);
	return test_finish();
}
