/* The dispatcher (KGSL-style): priority rings served highest first, within a priority the
 * context that ran least (round-robin among equals), per-context sop/eop timestamps in the memstore, retirement by end-of-pipe
 * timestamp, and hangcheck (a wait that never completes, an IB chain loop) with its
 * devcoredump, while other contexts keep completing their work; and the device lock handed over
 * to a waiting thread however busy the GPU is. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"

static struct sim_msm_device *dev;

/* The global execution order: each submit bumps SCRATCH(7) and stores it to its slot. */
#define ORDER_REG REG_A6XX_CP_SCRATCH_REG(7)

static void build_order_probe(struct pm4_builder *b, uint64_t slot_iova)
{
	pm4_reg_rmw(b, ORDER_REG, 0xffffffff, 1, 0, true);
	pm4_reg_to_mem(b, ORDER_REG, 1, slot_iova, false);
}

struct ctx {
	struct fixture f;
	uint32_t queue[3]; /* one per priority */
};

static void test_priority_and_round_robin(void)
{
	struct ctx c[2];
	const int per_ctx = 3;
	sim_msm_set_paused(dev, true);
	uint32_t fences[2][3][3];
	for (int i = 0; i < 2; i++) {
		fx_init(dev, &c[i].f);
		for (uint32_t p = 0; p < 3; p++)
			c[i].queue[p] = new_queue(c[i].f.k, p);
	}
	/* Queue lowest priority first: the order of submission must not matter. */
	for (int p = 2; p >= 0; p--) {
		for (int i = 0; i < 2; i++) {
			struct fixture *f = &c[i].f;
			for (int n = 0; n < per_ctx; n++) {
				uint32_t slot = (uint32_t)(p * per_ctx + n);
				struct pm4_builder b;
				pm4_builder_init(&b, f->cmd.cpu + 64 * slot, 64);
				build_order_probe(&b, f->data.iova + 4 * slot);
				REQUIRE(pm4_builder_ok(&b));
				struct drm_msm_gem_submit_bo bos[2] = {
					{ .flags = MSM_SUBMIT_BO_READ, .handle = f->cmd.handle },
					{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE, .handle = f->data.handle },
				};
				struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0,
								      .submit_offset = 256 * slot, .size = b.len * 4 };
				struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1,
								.bos = (uintptr_t)bos, .cmds = (uintptr_t)&cmd,
								.queueid = c[i].queue[p] };
				REQUIRE(kdev_ioctl(f->k, DRM_IOCTL_MSM_GEM_SUBMIT, &s) == 0);
				fences[i][p][n] = s.fence;
			}
		}
	}
	/* Paused: queued, nothing started. */
	struct sim_msm_memstore ms;
	REQUIRE(sim_msm_memstore(c[0].f.k, c[0].queue[0], &ms) == 0);
	CHECK_EQ(ms.queued, 3);
	CHECK_EQ(ms.soptimestamp, 0);
	CHECK_EQ(ms.eoptimestamp, 0);
	CHECK_EQ(wait_fence_ms(c[0].f.k, c[0].queue[0], fences[0][0][0], 50), -ETIMEDOUT);
	uint32_t base = sim_msm_read_reg(dev, ORDER_REG);
	sim_msm_set_paused(dev, false);
	for (int i = 0; i < 2; i++)
		for (int p = 0; p < 3; p++)
			CHECK_EQ(wait_fence_ms(c[i].f.k, c[i].queue[p], fences[i][p][per_ctx - 1], 20000), 0);
	/* Priority 0 first, then 1, then 2; inside a priority the two contexts alternate. */
	for (int p = 0; p < 3; p++)
		for (int n = 0; n < per_ctx; n++)
			for (int i = 0; i < 2; i++)
				CHECK_EQ(c[i].f.data.cpu[p * per_ctx + n] - base, (uint32_t)(p * 2 * per_ctx + 2 * n + i + 1));
	for (int i = 0; i < 2; i++) {
		for (int p = 0; p < 3; p++) {
			REQUIRE(sim_msm_memstore(c[i].f.k, c[i].queue[p], &ms) == 0);
			CHECK_EQ(ms.soptimestamp, 3);
			CHECK_EQ(ms.eoptimestamp, 3);
			CHECK_EQ(ms.queued, 3);
		}
		CHECK_EQ(sim_msm_memstore(c[i].f.k, 99, &ms), -ENOENT);
		fx_fini(&c[i].f);
	}
}

/* Submits one IB at dword `at` of cmd on queue q. */
static uint32_t submit_at(struct fixture *f, uint32_t q, uint32_t at, uint32_t len)
{
	struct drm_msm_gem_submit_bo bos[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = f->cmd.handle },
		{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE, .handle = f->data.handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .submit_offset = 4 * at,
					      .size = len * 4 };
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)bos,
					.cmds = (uintptr_t)&cmd, .queueid = q };
	REQUIRE(kdev_ioctl(f->k, DRM_IOCTL_MSM_GEM_SUBMIT, &s) == 0);
	return s.fence;
}

/* sop runs ahead of eop while a submit is in the CP; submits retire in order by eop. */
static void test_sop_eop_and_retire_order(void)
{
	struct fixture f;
	fx_init(dev, &f);
	uint32_t q = new_queue(f.k, 1), other = new_queue(f.k, 1);
	uint32_t fence[5];
	for (uint32_t i = 0; i < 5; i++) {
		struct pm4_builder b;
		pm4_builder_init(&b, f.cmd.cpu + 64 * i, 64);
		if (i == 2)
			pm4_wait_mem(&b, WRITE_EQ, f.data.iova + 256, 1, 0xffffffff); /* the gate */
		pm4_mem_write(&b, f.data.iova + 4 * i, (const uint32_t[]){ i + 1 }, 1);
		REQUIRE(pm4_builder_ok(&b));
		fence[i] = submit_at(&f, q, 64 * i, b.len);
	}
	CHECK_EQ(wait_fence_ms(f.k, q, fence[1], 10000), 0);
	/* The gate submit has begun (the device lock is fair: this thread may get it back before
	 * the GPU's next step, so wait for the start rather than assume it). */
	struct sim_msm_memstore ms;
	for (int i = 0; i < 10000; i++) {
		REQUIRE(sim_msm_memstore(f.k, q, &ms) == 0);
		if (ms.soptimestamp == 3)
			break;
		usleep(1000);
	}
	/* Another context of the same priority runs while this one waits. */
	struct pm4_builder b;
	pm4_builder_init(&b, f.cmd.cpu + 1024, 64);
	pm4_mem_write(&b, f.data.iova + 128, (const uint32_t[]){ 0x42 }, 1);
	CHECK_EQ(wait_fence_ms(f.k, other, submit_at(&f, other, 1024, b.len), 10000), 0);
	CHECK_EQ(f.data.cpu[32], 0x42);
	REQUIRE(sim_msm_memstore(f.k, q, &ms) == 0);
	CHECK_EQ(ms.queued, 5);
	CHECK_EQ(ms.soptimestamp, 3);
	CHECK_EQ(ms.eoptimestamp, 2);
	CHECK_EQ(wait_fence_ms(f.k, q, fence[0], 0), 0);
	CHECK_EQ(wait_fence_ms(f.k, q, fence[2], 0), -ETIMEDOUT);
	CHECK_EQ(wait_fence_ms(f.k, q, fence[4], 0), -ETIMEDOUT);
	CHECK_EQ(f.data.cpu[3], 0);
	__atomic_store_n(&f.data.cpu[64], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_fence_ms(f.k, q, fence[4], 10000), 0);
	REQUIRE(sim_msm_memstore(f.k, q, &ms) == 0);
	CHECK_EQ(ms.soptimestamp, 5);
	CHECK_EQ(ms.eoptimestamp, 5);
	for (uint32_t i = 0; i < 5; i++)
		CHECK_EQ(f.data.cpu[i], i + 1);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

/* A context that hangs in a wait beside one that completes 1000 submits. */
static void test_hang_beside_busy_context(void)
{
	sim_msm_set_hangcheck_ms(dev, 100);
	struct fixture h, w;
	fx_init(dev, &h);
	fx_init(dev, &w);
	uint32_t hq = new_queue(h.k, 1), wq = new_queue(w.k, 1);
	pm4_nop(&h.b, 0);
	pm4_wait_mem(&h.b, WRITE_EQ, h.data.iova, 1, 0xffffffff); /* never true */
	pm4_mem_write(&h.b, h.data.iova + 4, (const uint32_t[]){ 1 }, 1);
	const struct tbo *extra[1] = { &h.data };
	uint32_t hfence;
	REQUIRE(submit_ib_bos(h.k, hq, &h.cmd, h.b.len, extra, 1, &hfence) == 0);
	/* 1000 submits, each writing its number. */
	for (uint32_t i = 0; i < 1000; i++) {
		struct pm4_builder b;
		pm4_builder_init(&b, w.cmd.cpu + 8 * i, 8);
		pm4_mem_write(&b, w.data.iova + 4 * i, (const uint32_t[]){ i + 1 }, 1);
		REQUIRE(pm4_builder_ok(&b));
		uint32_t fence = submit_at(&w, wq, 8 * i, b.len);
		/* Keep a bounded number in flight, as a driver's ring would. */
		if (i % 50 == 49)
			CHECK_EQ(wait_fence_ms(w.k, wq, fence, 20000), 0);
	}
	struct sim_msm_memstore ms;
	REQUIRE(sim_msm_memstore(w.k, wq, &ms) == 0);
	CHECK_EQ(ms.eoptimestamp, 1000);
	int bad = 0;
	for (uint32_t i = 0; i < 1000; i++)
		bad += w.data.cpu[i] != i + 1;
	CHECK_EQ(bad, 0);
	CHECK_EQ(get_param(w.k, MSM_PARAM_FAULTS), 0);
	CHECK_EQ(queue_faults(w.k, wq), 0);
	CHECK_EQ(w.k->ops->coredump(w.k, (char[8]){ 0 }, 8), -ENOENT);
	/* The hung submit is ended by recovery: its fence completes, its context is blamed. */
	CHECK_EQ(wait_fence_ms(h.k, hq, hfence, 20000), 0);
	CHECK_EQ(h.data.cpu[1], 0);
	CHECK_EQ(get_param(h.k, MSM_PARAM_FAULTS), 1);
	CHECK_EQ(queue_faults(h.k, hq), 1);
	REQUIRE(sim_msm_memstore(h.k, hq, &ms) == 0);
	CHECK_EQ(ms.soptimestamp, 1);
	CHECK_EQ(ms.eoptimestamp, 1);
	char text[65536], want[400];
	fx_dump(&h, text, sizeof(text));
	CHECK(strstr(text, "hang:\n  - reason=hangcheck: no progress (hangcheck period 100 ms)\n"));
	snprintf(want, sizeof(want), "crash-location:\n  ib-level: 1\n  ib-iova: 0x%016llx\n  ib-size: %u\n  dword: 1\n",
		 (unsigned long long)h.cmd.iova, h.b.len);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  packet: CP_WAIT_REG_MEM (0x3c)\n"));
	snprintf(want, sizeof(want),
		 "last-packets:\n  - { iova: 0x%016llx, level: 1, dword: 0, header: 0x%08x, packet: CP_NOP }\n"
		 "  - { iova: 0x%016llx, level: 1, dword: 1, header: 0x%08x, packet: CP_WAIT_REG_MEM }\ncp-state:\n",
		 (unsigned long long)h.cmd.iova, pm4_type7_hdr(CP_NOP, 0), (unsigned long long)(h.cmd.iova + 4),
		 pm4_type7_hdr(CP_WAIT_REG_MEM, 6));
	CHECK(strstr(text, want));
	if (!strstr(text, want))
		fprintf(stderr, "want:\n%s\ngot:\n%s\n", want, text);
	CHECK(strstr(text, "registers:\n  - { offset: 0x000840, value: 0x"));
	sim_msm_set_hangcheck_ms(dev, 0);
	fx_fini(&h);
	fx_fini(&w);
}

/* An IB that chains to itself loops forever: hangcheck ends it after its period. */
static void test_chain_loop_hang(void)
{
	sim_msm_set_hangcheck_ms(dev, 100);
	struct fixture f;
	fx_init(dev, &f);
	uint32_t q = new_queue(f.k, 1), other = new_queue(f.k, 1);
	struct pm4_builder a;
	pm4_builder_init(&a, f.ib2.cpu, 64);
	pm4_mem_write(&a, f.data.iova, (const uint32_t[]){ 7 }, 1);
	pm4_ib_chain(&a, f.ib2.iova, 8);
	REQUIRE(a.len == 8);
	pm4_ib(&f.b, f.ib2.iova, a.len);
	pm4_mem_write(&f.b, f.data.iova + 4, (const uint32_t[]){ 1 }, 1);
	uint32_t fence;
	const struct tbo *extra[2] = { &f.ib2, &f.data };
	REQUIRE(submit_ib_bos(f.k, q, &f.cmd, f.b.len, extra, 2, &fence) == 0);
	/* The other context of the same priority still gets its turn while the loop spins. */
	struct pm4_builder b;
	pm4_builder_init(&b, f.cmd.cpu + 1024, 64);
	pm4_mem_write(&b, f.data.iova + 8, (const uint32_t[]){ 0x55 }, 1);
	CHECK_EQ(wait_fence_ms(f.k, other, submit_at(&f, other, 1024, b.len), 10000), 0);
	CHECK_EQ(f.data.cpu[2], 0x55);
	CHECK_EQ(wait_fence_ms(f.k, q, fence, 20000), 0);
	CHECK_EQ(f.data.cpu[0], 7);
	CHECK_EQ(f.data.cpu[1], 0);
	CHECK_EQ(queue_faults(f.k, q), 1);
	CHECK_EQ(queue_faults(f.k, other), 0);
	char text[65536];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "hang:\n  - reason=hangcheck: IB chain loop"));
	CHECK(strstr(text, "  ib-level: 2\n"));
	CHECK(strstr(text, "packet: CP_INDIRECT_BUFFER_CHAIN }"));
	sim_msm_set_hangcheck_ms(dev, 0);
	fx_fini(&f);
}

/* The device lock is handed over: while 16 contexts keep the CP busy (IB chain loops, each slice
 * a full budget of work), a thread taking the lock gets it after at most a piece of a slice,
 * never after the worker won it back slice after slice. Counted in worker steps, not timed. */
static void test_lock_handed_to_waiters(void)
{
	enum { N = 16, LOOP_NOPS = 8000, ROUNDS = 1000 };
	struct sim_msm_device *dev; /* its own: the counter below is the device's lifetime maximum */
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	sim_msm_set_hangcheck_ms(dev, 60000); /* the loops must outlive the measurement */
	struct fixture f[N];
	uint32_t fence[N];
	for (int i = 0; i < N; i++) {
		fx_init(dev, &f[i]);
		struct pm4_builder a;
		pm4_builder_init(&a, f[i].ib2.cpu, LOOP_NOPS + 8);
		for (int n = 0; n < LOOP_NOPS; n++)
			pm4_nop(&a, 0);
		pm4_ib_chain(&a, f[i].ib2.iova, LOOP_NOPS + 4);
		REQUIRE(pm4_builder_ok(&a) && a.len == LOOP_NOPS + 4);
		pm4_ib(&f[i].b, f[i].ib2.iova, a.len);
		const struct tbo *extra[2] = { &f[i].ib2, &f[i].data };
		REQUIRE(submit_ib_bos(f[i].k, 0, &f[i].cmd, f[i].b.len, extra, 2, &fence[i]) == 0);
	}
	struct sim_msm_cp_stats st;
	sim_msm_get_cp_stats(dev, &st);
	uint64_t start = st.packets;
	for (int r = 0; r < ROUNDS; r++) {
		usleep(200); /* the GPU runs alone a while, as between an event loop's ioctls */
		CHECK(get_param(f[r % N].k, MSM_PARAM_GPU_ID) == 630);
	}
	sim_msm_get_cp_stats(dev, &st);
	/* The GPU did run meanwhile (the worker is not simply locked out)... */
	CHECK(st.packets - start > 0);
	/* ...and no ioctl waited through more than the step in progress when it came, and one more
	 * should its wakeup take longer than the worker's patience (a loaded machine). */
	if (st.lock_wait_steps_max > 2)
		fprintf(stderr, "  an ioctl waited through %llu GPU steps\n",
			(unsigned long long)st.lock_wait_steps_max);
	CHECK(st.lock_wait_steps_max <= 2);
	sim_msm_set_hangcheck_ms(dev, 50); /* the chain-loop check ends them */
	for (int i = 0; i < N; i++) {
		CHECK_EQ(wait_fence_ms(f[i].k, 0, fence[i], 20000), 0);
		CHECK_EQ(queue_faults(f[i].k, 0), 1);
		fx_fini(&f[i]);
	}
	sim_msm_device_destroy(dev);
}

/* The dispatcher serves the context that ran least first: a context with one short submit does
 * not wait for every one of 8 spinning contexts' slices, only for the slice in progress. Counted
 * in CP packets run between its submit and its completion. */
/* n contexts each running an IB that chains to itself for ever (8000 NOPs a lap): busy until
 * the hangcheck, which the caller sets long, then short to end them (end_looping). */
static void start_looping(struct sim_msm_device *dev, struct fixture *f, uint32_t *fence, int n)
{
	enum { LOOP_NOPS = 8000 };
	sim_msm_set_hangcheck_ms(dev, 60000);
	for (int i = 0; i < n; i++) {
		fx_init(dev, &f[i]);
		struct pm4_builder a;
		pm4_builder_init(&a, f[i].ib2.cpu, LOOP_NOPS + 8);
		for (int k = 0; k < LOOP_NOPS; k++)
			pm4_nop(&a, 0);
		pm4_ib_chain(&a, f[i].ib2.iova, LOOP_NOPS + 4);
		REQUIRE(pm4_builder_ok(&a));
		pm4_ib(&f[i].b, f[i].ib2.iova, a.len);
		const struct tbo *extra[2] = { &f[i].ib2, &f[i].data };
		REQUIRE(submit_ib_bos(f[i].k, 0, &f[i].cmd, f[i].b.len, extra, 2, &fence[i]) == 0);
	}
}

static void end_looping(struct sim_msm_device *dev, struct fixture *f, const uint32_t *fence, int n)
{
	sim_msm_set_hangcheck_ms(dev, 50);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(wait_fence_ms(f[i].k, 0, fence[i], 20000), 0);
		fx_fini(&f[i]);
	}
}

static void test_light_context_not_behind_every_busy_one(void)
{
	enum { N = 8, ROUNDS = 20 };
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct fixture f[N], light;
	uint32_t fence[N];
	start_looping(dev, f, fence, N);
	fx_init(dev, &light);
	uint64_t worst = 0;
	for (uint32_t r = 0; r < ROUNDS; r++) {
		usleep(2000);
		struct pm4_builder b;
		pm4_builder_init(&b, light.cmd.cpu + 16 * r, 16);
		pm4_mem_write(&b, light.data.iova + 4 * r, (const uint32_t[]){ r + 1 }, 1);
		REQUIRE(pm4_builder_ok(&b));
		struct sim_msm_cp_stats st;
		sim_msm_get_cp_stats(dev, &st);
		uint64_t before = st.packets;
		uint32_t fl = submit_at(&light, 0, 16 * r, b.len);
		/* Watch the write itself (a fence wait's wakeup would let more slices run). */
		for (int spin = 0; spin < 20000 && !__atomic_load_n(&light.data.cpu[r], __ATOMIC_ACQUIRE); spin++)
			usleep(50);
		sim_msm_get_cp_stats(dev, &st);
		CHECK_EQ(wait_fence_ms(light.k, 0, fl, 20000), 0);
		/* Round 0 is behind the busy contexts that had no turn yet: all equal then. */
		if (r > 0 && st.packets - before > worst)
			worst = st.packets - before;
		CHECK_EQ(light.data.cpu[r], r + 1);
	}
	/* One slice is 65536 NOPs; round-robin behind all 8 would be up to 8. */
	if (worst >= 3 * 65536u)
		fprintf(stderr, "  %llu packets ran between a light submit and its completion\n",
			(unsigned long long)worst);
	CHECK(worst < 3 * 65536u);
	end_looping(dev, f, fence, N);
	fx_fini(&light);
	sim_msm_device_destroy(dev);
}

/* Four contexts looping for ever: slice after slice runs, nothing is queued or retired, and the
 * dispatcher looks at no context again; a new submit makes it look at that one. */
static void test_issue_walks_only_on_change(void)
{
	enum { N = 4 };
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct fixture f[N], light;
	uint32_t fence[N];
	start_looping(dev, f, fence, N);
	fx_init(dev, &light);
	/* Until each looping submit was issued (one look each): a loaded machine may take a while. */
	struct sim_msm_cp_stats a, b;
	for (int i = 0; i < 2000; i++) {
		sim_msm_get_cp_stats(dev, &a);
		if (a.issue_looks >= N)
			break;
		usleep(1000);
	}
	REQUIRE(a.issue_looks >= N);
	/* A few slices at least: 30 ms, or longer where the machine is busy. */
	for (int i = 0; i < 200; i++) {
		usleep(30000);
		sim_msm_get_cp_stats(dev, &b);
		if (b.packets - a.packets >= 4 * 65536u)
			break;
	}
	CHECK(b.packets - a.packets >= 4 * 65536u);
	CHECK(b.issue_looks - a.issue_looks <= 1);
	struct pm4_builder lb;
	pm4_builder_init(&lb, light.cmd.cpu, 16);
	pm4_mem_write(&lb, light.data.iova, (const uint32_t[]){ 7 }, 1);
	REQUIRE(pm4_builder_ok(&lb));
	uint32_t fl = submit_at(&light, 0, 0, lb.len);
	CHECK_EQ(wait_fence_ms(light.k, 0, fl, 20000), 0);
	CHECK_EQ(light.data.cpu[0], 7u);
	sim_msm_get_cp_stats(dev, &a);
	CHECK(a.issue_looks > b.issue_looks);
	end_looping(dev, f, fence, N);
	fx_fini(&light);
	sim_msm_device_destroy(dev);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_priority_and_round_robin);
	RUN_TEST(test_sop_eop_and_retire_order);
	RUN_TEST(test_hang_beside_busy_context);
	RUN_TEST(test_chain_loop_hang);
	RUN_TEST(test_lock_handed_to_waiters);
	RUN_TEST(test_light_context_not_behind_every_busy_one);
	RUN_TEST(test_issue_walks_only_on_change);
	sim_msm_device_destroy(dev);
	return test_finish();
}
