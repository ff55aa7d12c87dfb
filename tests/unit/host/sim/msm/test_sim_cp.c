/* The CP model through the simulated msm device, packet by packet: effects on memory and
 * registers, IB chains, waits across queues, skipped packets, faults with their exact location,
 * hangcheck, and fairness between queues. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ferry/hw/a6xx_regs.h"
#include "sim_helpers.h"

static struct sim_msm_device *dev;

struct fixture {
	struct kdev *k;
	struct tbo cmd, ib2, data;
	struct pm4_builder b;
};

static void fx_init(struct fixture *f)
{
	f->k = sim_msm_open(dev);
	REQUIRE(f->k);
	f->cmd = tbo_new(f->k, 64 * 1024);
	f->ib2 = tbo_new(f->k, 64 * 1024);
	f->data = tbo_new(f->k, 64 * 1024);
	pm4_builder_init(&f->b, f->cmd.cpu, 16 * 1024);
}

static void fx_fini(struct fixture *f)
{
	tbo_free(f->k, &f->cmd);
	tbo_free(f->k, &f->ib2);
	tbo_free(f->k, &f->data);
	f->k->ops->close(f->k);
}

/* Submits what the builder holds on queue 0 and waits for it. */
static void fx_run(struct fixture *f)
{
	REQUIRE(pm4_builder_ok(&f->b));
	const struct tbo *extra[2] = { &f->ib2, &f->data };
	uint32_t fence;
	REQUIRE(submit_ib_bos(f->k, 0, &f->cmd, f->b.len, extra, 2, &fence) == 0);
	CHECK_EQ(wait_fence_ms(f->k, 0, fence, 10000), 0);
}

static void test_type4_and_reg_to_mem(void)
{
	struct fixture f;
	fx_init(&f);
	PM4_PKT4(&f.b, REG_A6XX_CP_SCRATCH_REG(0), 0x11, 0x22, 0x33);
	pm4_reg_to_mem(&f.b, REG_A6XX_CP_SCRATCH_REG(0), 3, f.data.iova + 0x100, false);
	/* ACCUMULATE adds the register to memory. */
	f.data.cpu[0x200 / 4] = 1000;
	PM4_PKT7(&f.b, CP_REG_TO_MEM,
		 CP_REG_TO_MEM_0_REG(REG_A6XX_CP_SCRATCH_REG(1)) | CP_REG_TO_MEM_0_CNT(1) | CP_REG_TO_MEM_0_ACCUMULATE,
		 (uint32_t)(f.data.iova + 0x200), (uint32_t)((f.data.iova + 0x200) >> 32));
	fx_run(&f);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(0)), 0x11);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(2)), 0x33);
	CHECK_EQ(f.data.cpu[0x100 / 4], 0x11);
	CHECK_EQ(f.data.cpu[0x104 / 4], 0x22);
	CHECK_EQ(f.data.cpu[0x108 / 4], 0x33);
	CHECK_EQ(f.data.cpu[0x10c / 4], 0);
	CHECK_EQ(f.data.cpu[0x200 / 4], 1000 + 0x22);
	fx_fini(&f);
}

static void test_always_on_counter_advances(void)
{
	struct fixture f;
	fx_init(&f);
	pm4_reg_to_mem(&f.b, REG_A6XX_CP_ALWAYS_ON_COUNTER, 2, f.data.iova, true);
	fx_run(&f);
	uint64_t t1 = (uint64_t)f.data.cpu[1] << 32 | f.data.cpu[0];
	usleep(2000);
	fx_run(&f);
	uint64_t t2 = (uint64_t)f.data.cpu[1] << 32 | f.data.cpu[0];
	CHECK(t1 > 0);
	CHECK(t2 >= t1 + 19200); /* 2 ms at 19.2 MHz, with slack */
	fx_fini(&f);
}

static void test_mem_write_event_write_nop(void)
{
	struct fixture f;
	fx_init(&f);
	pm4_nop(&f.b, 5);
	pm4_mem_write(&f.b, f.data.iova + 16, (const uint32_t[]){ 1, 2, 3, 4 }, 4);
	pm4_event_write_ts(&f.b, CACHE_FLUSH_TS, f.data.iova + 64, 0xfeed);
	/* The one-dword form carries no address: nothing to write. */
	pm4_event_write(&f.b, CACHE_INVALIDATE);
	pm4_wait_for_idle(&f.b);
	pm4_wait_for_me(&f.b);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[4], 1);
	CHECK_EQ(f.data.cpu[7], 4);
	CHECK_EQ(f.data.cpu[8], 0);
	CHECK_EQ(f.data.cpu[16], 0xfeed);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

static void test_mem_to_reg_and_memcpy(void)
{
	struct fixture f;
	fx_init(&f);
	f.data.cpu[0] = 0xa1;
	f.data.cpu[1] = 0xa2;
	pm4_mem_to_reg(&f.b, REG_A6XX_CP_SCRATCH_REG(4), 2, f.data.iova);
	/* A copy bigger than a slice: resumed across slices. */
	for (uint32_t i = 0; i < 4096; i++)
		f.data.cpu[1024 + i] = i * 7;
	pm4_memcpy(&f.b, f.data.iova + 8192 + 16384, f.data.iova + 4096, 4096);
	fx_run(&f);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(4)), 0xa1);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(5)), 0xa2);
	int bad = 0;
	for (uint32_t i = 0; i < 4096; i++)
		bad += f.data.cpu[(8192 + 16384) / 4 + i] != i * 7;
	CHECK_EQ(bad, 0);
	fx_fini(&f);
}

static void test_ib1_to_ib2_chain(void)
{
	struct fixture f;
	fx_init(&f);
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 1024);
	pm4_mem_write(&b2, f.data.iova, (const uint32_t[]){ 0x2 }, 1);
	pm4_mem_write(&f.b, f.data.iova + 4, (const uint32_t[]){ 0x1 }, 1);
	pm4_ib(&f.b, f.ib2.iova, b2.len);
	/* IB1 continues after the IB2 returns, and a zero-size IB is a no-op. */
	pm4_ib(&f.b, f.ib2.iova, 0);
	pm4_mem_write(&f.b, f.data.iova + 8, (const uint32_t[]){ 0x3 }, 1);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[0], 2);
	CHECK_EQ(f.data.cpu[1], 1);
	CHECK_EQ(f.data.cpu[2], 3);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

static void test_skipped_packets_counted(void)
{
	struct fixture f;
	fx_init(&f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	PM4_PKT7(&f.b, CP_SET_MODE, 0x1);
	PM4_PKT7(&f.b, CP_SET_MODE, 0x0);
	PM4_PKT7(&f.b, CP_LOAD_STATE6, 0, 0, 0);
	/* A skipped packet's payload is not executed, even if it looks like packets. */
	PM4_PKT7(&f.b, 0x7e, pm4_type7_hdr(CP_MEM_WRITE, 3), (uint32_t)f.data.iova,
		 (uint32_t)(f.data.iova >> 32), 0x99);
	pm4_nop(&f.b, 0);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(after.skipped[CP_SET_MODE] - before.skipped[CP_SET_MODE], 1); /* the binning mode */
	CHECK_EQ(after.skipped[CP_LOAD_STATE6] - before.skipped[CP_LOAD_STATE6], 1);
	CHECK_EQ(after.skipped[0x7e] - before.skipped[0x7e], 1);
	CHECK_EQ(after.skipped[CP_NOP] - before.skipped[CP_NOP], 0);
	CHECK_EQ(after.packets - before.packets, 5);
	CHECK_EQ(f.data.cpu[0], 0);
	fx_fini(&f);
}

/* CP_REG_WRITE writes its register (Turnip's LRZ-tracked GRAS_LRZ_CNTL writes); too short a
 * packet is an opcode error. */
static void test_reg_write(void)
{
	struct fixture f;
	fx_init(&f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	PM4_PKT7(&f.b, CP_REG_WRITE, 1 /* TRACK_LRZ */, REG_A6XX_CP_SCRATCH_REG(2), 0xfeed);
	PM4_PKT7(&f.b, CP_REG_TO_MEM, CP_REG_TO_MEM_0_REG(REG_A6XX_CP_SCRATCH_REG(2)) | CP_REG_TO_MEM_0_CNT(1),
		 (uint32_t)f.data.iova, (uint32_t)(f.data.iova >> 32));
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(f.data.cpu[0], 0xfeed);
	CHECK_EQ(after.skipped[CP_REG_WRITE] - before.skipped[CP_REG_WRITE], 0);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	PM4_PKT7(&f.b, CP_REG_WRITE, 1, REG_A6XX_CP_SCRATCH_REG(2));
	fx_run(&f);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 1);
	fx_fini(&f);
}

static void test_wait_functions(void)
{
	struct fixture f;
	fx_init(&f);
	f.data.cpu[0] = 5;
	f.data.cpu[1] = (uint32_t)-3;
	/* Each wait is satisfied at once, so the stream completes and the final write lands. */
	pm4_wait_mem(&f.b, WRITE_ALWAYS, f.data.iova, 0, 0);
	pm4_wait_mem(&f.b, WRITE_EQ, f.data.iova, 5, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_NE, f.data.iova, 4, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_LT, f.data.iova, 6, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_LE, f.data.iova, 5, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_GE, f.data.iova, 5, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_GT, f.data.iova, 4, 0xffffffff);
	pm4_wait_mem(&f.b, WRITE_EQ, f.data.iova, 1, 0x1); /* masked: 5 & 1 == 1 */
	PM4_PKT7(&f.b, CP_WAIT_REG_MEM, WRITE_LT | CP_WAIT_REG_MEM_0_SIGNED | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY),
		 (uint32_t)(f.data.iova + 4), (uint32_t)((f.data.iova + 4) >> 32), 0, 0xffffffff, 0);
	PM4_PKT4(&f.b, REG_A6XX_CP_SCRATCH_REG(6), 0x77);
	pm4_wait_reg(&f.b, WRITE_EQ, REG_A6XX_CP_SCRATCH_REG(6), 0x77, 0xff);
	pm4_mem_write(&f.b, f.data.iova + 8, (const uint32_t[]){ 0xd0e }, 1);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[2], 0xd0e);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

/* Queue A waits for memory that queue B writes later; A does not block the GPU meanwhile. */
static void test_wait_satisfied_by_other_queue(void)
{
	struct fixture f;
	fx_init(&f);
	uint32_t qa = new_queue(f.k, 0), qb = new_queue(f.k, 1);
	pm4_wait_mem(&f.b, WRITE_GE, f.data.iova, 7, 0xffffffff);
	pm4_mem_write(&f.b, f.data.iova + 4, (const uint32_t[]){ 0xaa }, 1);
	const struct tbo *extra[1] = { &f.data };
	uint32_t fa, fb;
	REQUIRE(submit_ib_bos(f.k, qa, &f.cmd, f.b.len, extra, 1, &fa) == 0);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 20), -ETIMEDOUT);
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 1024);
	pm4_mem_write(&b2, f.data.iova, (const uint32_t[]){ 7 }, 1);
	REQUIRE(submit_ib_bos(f.k, qb, &f.ib2, b2.len, extra, 1, &fb) == 0);
	CHECK_EQ(wait_fence_ms(f.k, qb, fb, 10000), 0);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 10000), 0);
	CHECK_EQ(f.data.cpu[1], 0xaa);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

static void read_dump(struct kdev *k, char *text, size_t len)
{
	ssize_t n = k->ops->coredump(k, text, len);
	REQUIRE(n > 0);
}

static void test_fault_unmapped_write_in_ib2(void)
{
	struct fixture f;
	fx_init(&f);
	uint32_t q = new_queue(f.k, 1);
	uint64_t faults0 = get_param(f.k, MSM_PARAM_FAULTS);
	const uint64_t bad = 0x1deadb000ull; /* inside the VA range, mapped by nothing */
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu + 16, 1024); /* the IB2 starts 64 bytes into its BO */
	pm4_nop(&b2, 2);
	pm4_mem_write(&b2, f.data.iova, (const uint32_t[]){ 1 }, 1);
	pm4_mem_write(&b2, bad, (const uint32_t[]){ 2 }, 1); /* at dword 3 + 4 = 7 */
	pm4_mem_write(&b2, f.data.iova + 4, (const uint32_t[]){ 3 }, 1);
	pm4_nop(&f.b, 0);
	pm4_ib(&f.b, f.ib2.iova + 64, b2.len);
	pm4_mem_write(&f.b, f.data.iova + 8, (const uint32_t[]){ 4 }, 1);
	const struct tbo *extra[2] = { &f.ib2, &f.data };
	uint32_t fence;
	REQUIRE(submit_ib_bos(f.k, q, &f.cmd, f.b.len, extra, 2, &fence) == 0);
	CHECK_EQ(wait_fence_ms(f.k, q, fence, 10000), 0); /* the guilty submit retires */
	CHECK_EQ(f.data.cpu[0], 1);
	CHECK_EQ(f.data.cpu[1], 0); /* stopped at the fault */
	CHECK_EQ(f.data.cpu[2], 0);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), faults0 + 1);
	CHECK_EQ(queue_faults(f.k, q), 1);
	CHECK_EQ(queue_faults(f.k, 0), 0);
	char text[16384], want[128];
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "kernel: ") && strstr(text, "module: msm\n") && strstr(text, "revision: 630 (6.3.0.2)\n"));
	CHECK(strstr(text, "pagefault-info:\n"));
	snprintf(want, sizeof(want), "  - iova=0x%016llx\n", (unsigned long long)bad);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  - dir=WRITE\n"));
	CHECK(strstr(text, "  - type=TRANSLATION\n"));
	CHECK(strstr(text, "  - source=CP\n"));
	snprintf(want, sizeof(want), "submit:\n  queue: %u\n  fence: %u\n", q, fence);
	CHECK(strstr(text, want));
	snprintf(want, sizeof(want), "crash-location:\n  ib-level: 2\n  ib-iova: 0x%016llx\n",
		 (unsigned long long)(f.ib2.iova + 64));
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  dword: 7\n"));
	CHECK(strstr(text, "  packet: CP_MEM_WRITE (0x3d)\n"));
	CHECK(strstr(text, "  header: 0x703d8003\n"));
	CHECK(strstr(text, "registers:\n"));
	snprintf(want, sizeof(want), "value: 0x%08x, name: CP_IB2_BASE }", (uint32_t)(f.ib2.iova + 64));
	CHECK(strstr(text, want));
	CHECK(strstr(text, "name: CP_IB1_BASE }") && strstr(text, "name: CP_IB1_REM_SIZE }"));
	/* IB1 had 1 + 4 dwords consumed of 9; IB2 stopped at the faulting packet (3 of 10 left). */
	CHECK(strstr(text, "offset: 0x0024a8, value: 0x00000004, name: CP_IB1_REM_SIZE }"));
	CHECK(strstr(text, "offset: 0x0024b4, value: 0x00000008, name: CP_IB2_REM_SIZE }"));
	CHECK_EQ(f.k->ops->coredump(f.k, text, sizeof(text)), -ENOENT); /* consumed */
	fx_fini(&f);
}

static void test_fault_unmapped_read_and_readonly(void)
{
	struct fixture f;
	fx_init(&f);
	char text[16384], want[128];
	/* Read fault: CP_MEM_TO_REG from an unmapped address, in IB1 at dword 2. */
	pm4_nop(&f.b, 0);
	pm4_nop(&f.b, 0);
	pm4_mem_to_reg(&f.b, REG_A6XX_CP_SCRATCH_REG(7), 1, 0x1fff00000ull);
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "  - iova=0x00000001fff00000\n"));
	CHECK(strstr(text, "  - dir=READ\n"));
	CHECK(strstr(text, "  ib-level: 1\n"));
	snprintf(want, sizeof(want), "  ib-iova: 0x%016llx\n", (unsigned long long)f.cmd.iova);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  dword: 2\n"));
	CHECK(strstr(text, "  packet: CP_MEM_TO_REG (0x42)\n"));
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 1);

	/* A GPU write into a GPU_READONLY BO is a permission fault. */
	struct tbo ro = tbo_new_flags(f.k, 4096, MSM_BO_WC | MSM_BO_GPU_READONLY);
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	pm4_mem_write(&f.b, ro.iova, (const uint32_t[]){ 9 }, 1);
	fx_run(&f);
	CHECK_EQ(ro.cpu[0], 0);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "  - type=PERMISSION\n") && strstr(text, "  - dir=WRITE\n"));
	/* ...but the GPU may read it. */
	ro.cpu[0] = 0x5a;
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	pm4_memcpy(&f.b, f.data.iova, ro.iova, 1);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[0], 0x5a);

	/* An IB pointing at unmapped memory faults on the fetch of its first header. */
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	pm4_ib(&f.b, 0x1ffff0000ull, 4);
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "  - iova=0x00000001ffff0000\n") && strstr(text, "  - dir=READ\n"));
	CHECK(strstr(text, "  ib-level: 2\n  ib-iova: 0x00000001ffff0000\n"));
	CHECK(strstr(text, "  dword: 0\n"));
	CHECK(strstr(text, "  packet: invalid\n"));
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 3);
	CHECK_EQ(queue_faults(f.k, 0), 3);
	tbo_free(f.k, &ro);
	fx_fini(&f);
}

static void test_cp_errors(void)
{
	struct fixture f;
	fx_init(&f);
	char text[16384];
	/* Bad parity: CP opcode error. */
	pm4_nop(&f.b, 0);
	f.cmd.cpu[f.b.len++] = pm4_type7_hdr(CP_NOP, 0) ^ (1u << 15);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 1 }, 1);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[0], 0);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "cp-error:\n  - reason=type-7 header parity error\n"));
	CHECK(!strstr(text, "pagefault-info"));
	CHECK(strstr(text, "  dword: 1\n"));
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 1);
	/* Type-4 parity, and a packet type a6xx does not have. */
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	f.cmd.cpu[0] = pm4_type4_hdr(0x883, 1) ^ (1u << 27);
	f.cmd.cpu[1] = 0;
	f.b.len = 2;
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "type-4 header parity error"));
	CHECK(strstr(text, "  packet: PKT4 reg=0x0883\n"));
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	f.cmd.cpu[0] = 0xc0001000; /* type-3 */
	f.b.len = 1;
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "invalid packet type"));
	/* A packet that claims more payload than its IB holds. */
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 1, 2, 3 }, 3);
	f.b.len -= 2;
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "runs past the end of its IB"));
	CHECK_EQ(f.data.cpu[0], 0);
	/* IBs nest two deep: an IB inside IB2 is an error. */
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 1024);
	pm4_ib(&b2, f.ib2.iova, 4);
	pm4_builder_init(&f.b, f.cmd.cpu, 1024);
	pm4_ib(&f.b, f.ib2.iova, b2.len);
	fx_run(&f);
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "inside IB2"));
	CHECK(strstr(text, "  ib-level: 2\n"));
	CHECK(strstr(text, "  packet: CP_INDIRECT_BUFFER (0x3f)\n"));
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 5);
	fx_fini(&f);
}

static void test_hangcheck(void)
{
	struct fixture f;
	fx_init(&f);
	sim_msm_set_hangcheck_ms(dev, 100);
	uint32_t q = new_queue(f.k, 1);
	pm4_nop(&f.b, 0);
	pm4_wait_mem(&f.b, WRITE_EQ, f.data.iova, 1, 0xffffffff); /* never true */
	pm4_mem_write(&f.b, f.data.iova + 4, (const uint32_t[]){ 1 }, 1);
	const struct tbo *extra[1] = { &f.data };
	uint32_t fence;
	REQUIRE(submit_ib_bos(f.k, q, &f.cmd, f.b.len, extra, 1, &fence) == 0);
	CHECK_EQ(wait_fence_ms(f.k, q, fence, 10000), 0); /* retired by recovery */
	CHECK_EQ(f.data.cpu[1], 0);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 1);
	CHECK_EQ(queue_faults(f.k, q), 1);
	char text[16384], want[128];
	read_dump(f.k, text, sizeof(text));
	CHECK(strstr(text, "hang:\n  - reason="));
	CHECK(!strstr(text, "pagefault-info"));
	snprintf(want, sizeof(want), "submit:\n  queue: %u\n  fence: %u\n", q, fence);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  ib-level: 1\n") && strstr(text, "  dword: 1\n"));
	CHECK(strstr(text, "  packet: CP_WAIT_REG_MEM (0x3c)\n"));
	sim_msm_set_hangcheck_ms(dev, 0);
	fx_fini(&f);
}

/* A long stream on one queue does not keep another queue's short submit from completing: the
 * short submit's write is visible to the long one before the long one's stream ends. */
static void test_long_stream_does_not_starve(void)
{
	struct fixture f;
	fx_init(&f);
	sim_msm_set_slice_budget(dev, 256);
	/* About fairness, not hangs: A's ~16M packets must not pass the hangcheck's CP-time limit
	 * (4 periods) on a slow run (ASan on a loaded machine took over 2 s). */
	sim_msm_set_hangcheck_ms(dev, 10000);
	uint32_t qa = new_queue(f.k, 1), qb = new_queue(f.k, 1);
	/* IB2: 16K dwords of small NOPs; IB1 calls it 2000 times: ~32M dwords, ~16M packets. Then
	 * A copies what B wrote (data[1]) to data[2] and waits for the test's gate (data[3]). */
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 16 * 1024);
	while (b2.len + 2 <= 16 * 1024)
		pm4_nop(&b2, 1);
	for (int i = 0; i < 2000; i++)
		pm4_ib(&f.b, f.ib2.iova, b2.len);
	pm4_memcpy(&f.b, f.data.iova + 8, f.data.iova + 4, 1);
	pm4_wait_mem(&f.b, WRITE_EQ, f.data.iova + 12, 1, 0xffffffff);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 0xa }, 1);
	const struct tbo *extra[2] = { &f.ib2, &f.data };
	uint32_t fa, fb;
	REQUIRE(submit_ib_bos(f.k, qa, &f.cmd, f.b.len, extra, 2, &fa) == 0);
	/* The short one, on its own command buffer. */
	struct tbo small = tbo_new(f.k, 4096);
	struct pm4_builder bs;
	pm4_builder_init(&bs, small.cpu, 1024);
	pm4_mem_write(&bs, f.data.iova + 4, (const uint32_t[]){ 0xb }, 1);
	const struct tbo *extra_b[1] = { &f.data };
	REQUIRE(submit_ib_bos(f.k, qb, &small, bs.len, extra_b, 1, &fb) == 0);
	/* A GET_PARAM is answered while the GPU is busy. */
	CHECK_EQ(get_param(f.k, MSM_PARAM_GPU_ID), 630);
	CHECK_EQ(wait_fence_ms(f.k, qb, fb, 20000), 0);
	CHECK_EQ(f.data.cpu[1], 0xb);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 0), -ETIMEDOUT); /* A is held at the gate at least */
	__atomic_store_n(&f.data.cpu[3], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 60000), 0);
	CHECK_EQ(f.data.cpu[0], 0xa);
	CHECK_EQ(f.data.cpu[2], 0xb); /* B ran before A's long stream ended */
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	sim_msm_set_slice_budget(dev, 0);
	sim_msm_set_hangcheck_ms(dev, 0);
	tbo_free(f.k, &small);
	fx_fini(&f);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_type4_and_reg_to_mem);
	RUN_TEST(test_always_on_counter_advances);
	RUN_TEST(test_mem_write_event_write_nop);
	RUN_TEST(test_mem_to_reg_and_memcpy);
	RUN_TEST(test_ib1_to_ib2_chain);
	RUN_TEST(test_skipped_packets_counted);
	RUN_TEST(test_reg_write);
	RUN_TEST(test_wait_functions);
	RUN_TEST(test_wait_satisfied_by_other_queue);
	RUN_TEST(test_fault_unmapped_write_in_ib2);
	RUN_TEST(test_fault_unmapped_read_and_readonly);
	RUN_TEST(test_cp_errors);
	RUN_TEST(test_hangcheck);
	RUN_TEST(test_long_stream_does_not_starve);
	sim_msm_device_destroy(dev);
	return test_finish();
}
