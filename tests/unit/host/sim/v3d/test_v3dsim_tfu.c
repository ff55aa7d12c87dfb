/* TFU jobs on the simulated V3D 4.2 and 7.1: raster copies byte-exact over several sizes, strides
 * and byte-per-pixel types; the faithful insecurity (a job of one open reads another open's BO
 * by address); MMU faults and unsupported configurations reported through kdev.coredump. */
#include <stdio.h>
#include <stdlib.h>

#include "v3dsim_util.h"

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static int submit_tfu_wait(struct kdev *kd, struct drm_v3d_submit_tfu *t, uint32_t out_sync)
{
	t->out_sync = out_sync;
	int ret = kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU, t);
	if (ret)
		return ret;
	return syncobj_wait1(kd, out_sync);
}

struct copy_case {
	uint32_t ttype, bpp, w, h, src_stride, dst_stride; /* strides in pixels */
};

static void run_copies(const char *model)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create(model, &dev) == 0);
	int ver = sim_v3d_version(dev);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	uint32_t sync = syncobj_new(kd, false);
	/* R8, RG8, RGBA8, R16F, RGBA16F, R32F, RGBA32F, RGBA32UI: the TFU-compatible formats Mesa
	 * picks for copies by cpp, and a few more. 4.2's output stride is always the width. */
	const struct copy_case cases[] = {
		{ 0, 1, 1, 1, 1, 1 },
		{ 0, 1, 13, 7, 16, 32 },
		{ 2, 2, 64, 3, 64, 80 },
		{ 4, 4, 100, 33, 128, 100 },
		{ 16, 2, 257, 5, 300, 260 },
		{ 18, 8, 31, 9, 40, 64 },
		{ 29, 4, 1024, 4, 1100, 1024 },
		{ 31, 16, 17, 17, 17, 20 },
		{ 113, 16, 5, 200, 8, 6 },
		{ 97, 1, 4000, 2, 4096, 4100 }, /* rows longer than one 4 KiB access */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct copy_case *k = &cases[c];
		uint32_t dst_stride = ver >= 71 ? k->dst_stride : k->w;
		uint32_t src_bytes = (k->src_stride * (k->h - 1) + k->w) * k->bpp;
		uint32_t dst_bytes = (dst_stride * (k->h - 1) + k->w) * k->bpp;
		struct tbo src = tbo_new(kd, src_bytes), dst = tbo_new(kd, dst_bytes + 256);
		fill_pattern(src.map, src_bytes, (uint32_t)c);
		memset(dst.map, 0xee, dst_bytes + 256);
		struct drm_v3d_submit_tfu t = tfu_copy(ver, k->ttype, src.offset, k->src_stride, dst.offset,
						       k->dst_stride, k->w, k->h);
		t.bo_handles[0] = dst.handle;
		t.bo_handles[1] = src.handle;
		CHECK_EQ(submit_tfu_wait(kd, &t, sync), 0);
		bool rows_ok = true, gaps_ok = true;
		for (uint32_t y = 0; y < k->h; y++) {
			const uint8_t *s = src.map + (size_t)y * k->src_stride * k->bpp;
			const uint8_t *d = dst.map + (size_t)y * dst_stride * k->bpp;
			if (memcmp(s, d, (size_t)k->w * k->bpp))
				rows_ok = false;
			/* Bytes between rows are not written. */
			if (y + 1 < k->h)
				for (size_t i = (size_t)k->w * k->bpp; i < (size_t)dst_stride * k->bpp; i++)
					if (d[i] != 0xee)
						gaps_ok = false;
		}
		for (uint32_t i = dst_bytes; i < dst_bytes + 256; i++)
			if (dst.map[i] != 0xee)
				gaps_ok = false;
		if (!rows_ok || !gaps_ok)
			fprintf(stderr, "%s case %zu: rows %d gaps %d\n", model, c, rows_ok, gaps_ok);
		CHECK(rows_ok);
		CHECK(gaps_ok);
		tbo_free(kd, &src);
		tbo_free(kd, &dst);
	}
	struct sim_v3d_stats st;
	sim_v3d_get_stats(dev, &st);
	CHECK_EQ(st.jobs_done[V3D_TFU], sizeof(cases) / sizeof(cases[0]));
	CHECK_EQ(st.mmu_faults + st.job_errors, 0);
	CHECK_EQ(kd->ops->coredump(kd, NULL, 0), -ENOENT);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

static void test_copies_42(void)
{
	run_copies("v3d-4.2");
}

static void test_copies_71(void)
{
	run_copies("v3d-7.1");
}

/* The 80-byte 6.1 request reaches the same handler (drm_ioctl zero-extends it). */
static void test_tfu_61_request(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	struct tbo bo = tbo_new(kd, 8192);
	fill_pattern(bo.map, 4096, 7);
	uint32_t sync = syncobj_new(kd, false);
	struct drm_v3d_submit_tfu t = tfu_copy(42, 4, bo.offset, 64, bo.offset + 4096, 64, 64, 16);
	t.out_sync = sync;
	t.v71.ioc = 0xdeadbeef; /* beyond the 80 bytes: never seen */
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU_61, &t), 0);
	CHECK_EQ(syncobj_wait1(kd, sync), 0);
	CHECK(!memcmp(bo.map, bo.map + 4096, 4096));
	tbo_free(kd, &bo);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

/* Offsets are global: open B's TFU job reads open A's BO by address (B never had a handle to
 * it) and writes into it too. This is the hardware's behaviour, kept on purpose. */
static void test_cross_open_reach(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-7.1", &dev) == 0);
	struct kdev *a = sim_v3d_open(dev), *b = sim_v3d_open(dev);
	REQUIRE(a && b);
	struct tbo secret = tbo_new(a, 4096);
	memcpy(secret.map, "open A's secret", 16);
	struct tbo loot = tbo_new(b, 4096);
	uint32_t sync = syncobj_new(b, false);
	struct drm_v3d_submit_tfu t = tfu_copy(71, 0, secret.offset, 16, loot.offset, 16, 16, 1);
	t.bo_handles[0] = loot.handle; /* only B's own BO is listed */
	CHECK_EQ(submit_tfu_wait(b, &t, sync), 0);
	CHECK(!memcmp(loot.map, "open A's secret", 16));
	/* ... and writes: B overwrites A's BO. */
	memcpy(loot.map, "overwritten by B", 16);
	t = tfu_copy(71, 0, loot.offset, 16, secret.offset, 16, 16, 1);
	t.bo_handles[0] = loot.handle;
	CHECK_EQ(submit_tfu_wait(b, &t, sync), 0);
	CHECK(!memcmp(secret.map, "overwritten by B", 16));
	CHECK_EQ(sim_v3d_open_faults(a) + sim_v3d_open_faults(b), 0);
	tbo_free(a, &secret);
	tbo_free(b, &loot);
	a->ops->close(a);
	b->ops->close(b);
	sim_v3d_device_destroy(dev);
}

static void test_faults_and_errors(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	struct tbo bo = tbo_new(kd, 8192);
	uint32_t sync = syncobj_new(kd, false);
	char report[4096];

	/* The input runs off the end of the BO into unmapped space: a read fault at the first
	 * unmapped page, reported for the TFU's IIA. The job still completes. */
	struct drm_v3d_submit_tfu t = tfu_copy(42, 4, bo.offset + 4096, 1024, bo.offset, 0, 1024, 2);
	t.bo_handles[0] = bo.handle;
	CHECK_EQ(submit_tfu_wait(kd, &t, sync), 0);
	ssize_t n = kd->ops->coredump(kd, report, sizeof(report));
	REQUIRE(n > 0);
	CHECK(strstr(report, "module: v3d") != NULL);
	CHECK(strstr(report, "mmu-fault:") != NULL);
	CHECK(strstr(report, "unit=TFU") != NULL);
	CHECK(strstr(report, "dir=READ") != NULL);
	CHECK(strstr(report, "register: IIA") != NULL);
	char want[64];
	snprintf(want, sizeof(want), "address=0x%08x", bo.offset + 8192);
	CHECK(strstr(report, want) != NULL);
	CHECK(strstr(report, "queue: tfu") != NULL);
	CHECK_EQ(kd->ops->coredump(kd, report, sizeof(report)), -ENOENT); /* consumed */

	/* A write to an unmapped output address. */
	t = tfu_copy(42, 0, bo.offset, 64, 0x40000000u, 0, 64, 1);
	t.bo_handles[0] = bo.handle;
	CHECK_EQ(submit_tfu_wait(kd, &t, sync), 0);
	REQUIRE(kd->ops->coredump(kd, report, sizeof(report)) > 0);
	CHECK(strstr(report, "dir=WRITE") != NULL && strstr(report, "register: IOA") != NULL);
	CHECK(strstr(report, "address=0x40000000") != NULL);

	/* Unsupported: a reserved output format, SAND input, mipmaps, YUV, an ETC2 type. */
	const struct {
		uint32_t icfg, ioa_flags, coef0;
		const char *reg;
	} bad[] = {
		{ 4u << 9, 1u << 3, 0, "register: IOA" },
		{ (4u << 9) | (1u << 18), 0, 0, "register: ICFG" },
		{ (4u << 9) | (3u << 5), 0, 0, "register: ICFG" },
		{ 4u << 9, 0, 1u << 31, "register: COEF0" },
		{ 32u << 9, 0, 0, "register: ICFG" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = tfu_copy(42, 0, bo.offset, 16, bo.offset + 4096, 16, 16, 1);
		t.icfg = bad[i].icfg;
		t.ioa |= bad[i].ioa_flags;
		t.coef[0] = bad[i].coef0;
		CHECK_EQ(submit_tfu_wait(kd, &t, sync), 0);
		REQUIRE(kd->ops->coredump(kd, report, sizeof(report)) > 0);
		CHECK(strstr(report, "job-error:") != NULL);
		CHECK(strstr(report, bad[i].reg) != NULL);
	}
	struct sim_v3d_stats st;
	sim_v3d_get_stats(dev, &st);
	CHECK_EQ(st.mmu_faults, 2);
	CHECK_EQ(st.job_errors, 5);
	CHECK_EQ(sim_v3d_open_faults(kd), 7);
	/* A truncating coredump read still NUL-terminates. */
	t = tfu_copy(42, 0, 0x50000000u, 16, bo.offset, 16, 16, 1);
	CHECK_EQ(submit_tfu_wait(kd, &t, sync), 0);
	char small[8];
	CHECK_EQ(kd->ops->coredump(kd, small, sizeof(small)), 7);
	CHECK_EQ(small[7], '\0');
	tbo_free(kd, &bo);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

int main(void)
{
	RUN_TEST(test_copies_42);
	RUN_TEST(test_copies_71);
	RUN_TEST(test_tfu_61_request);
	RUN_TEST(test_cross_open_reach);
	RUN_TEST(test_faults_and_errors);
	return test_finish();
}
