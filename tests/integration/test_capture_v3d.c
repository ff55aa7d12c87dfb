/* V3D capture, decode and replay end to end: ferryd --gpu v3d-4.2 captures a raster copy (CL)
 * as a session file (every listed BO snapshotted, mode 0600); `ferry decode` prints its lists
 * CLIF-like; `ferry replay` on a fresh ferryd, whose BOs land at other addresses, relocates
 * every address and writes the same bytes; a captured MMU fault reproduces at the same packet. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "cmd_output.h"
#include "itest.h"
#include "test.h"
#include "v3d_cl_builder.h"

#define WAIT_NS (20ll * 1000 * 1000 * 1000)
#define CL_SIZE 16384u

static struct ferryd_proc ferryd;
static char root[64], cap_dir[96], work[96];

static const char *ferry_bin(void)
{
	const char *f = getenv("FERRY");
	REQUIRE(f && f[0]);
	return f;
}

static char *control(const char *req)
{
	char *answer = NULL;
	REQUIRE(control_request(ferryd.control, req, 10000, &answer) == 0);
	return answer;
}

/* The one file in dir ending in suffix (its path in path); how many there are. */
static int find_file(const char *dir, const char *suffix, char *path, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), s = strlen(suffix);
		if (l > s && !strcmp(e->d_name + l - s, suffix)) {
			n++;
			snprintf(path, len, "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	return n;
}

struct vbo {
	struct ferry_bo *bo;
	uint8_t *cpu;
	uint32_t addr, size;
};

static void vbo_new(struct ferry_context *ctx, uint32_t size, struct vbo *b)
{
	memset(b, 0, sizeof(*b));
	void *p = NULL;
	uint64_t iova = 0;
	REQUIRE(ferry_bo_new(ctx, size, 0, &b->bo) == 0);
	REQUIRE(ferry_bo_map(b->bo, &p) == 0);
	REQUIRE(ferry_bo_iova(b->bo, &iova) == 0);
	b->cpu = p;
	b->addr = (uint32_t)iova;
	b->size = size;
}

/* One client, one CL queue, the BOs of one raster copy (lists, tile alloc, source, dest). */
struct copy {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *q;
	struct vbo cl, ta, src, dst, tail; /* tail: made last, nothing mapped after it */
	struct v3d_clb_raster_job job;
	uint32_t bcl_end, rcl_start, rcl_end, qms;
};

/* dst_addr: 0 the copy's own dst BO, 1 the last 64 bytes of tail (the rows run past its end),
 * else that address. */
static void copy_open(struct copy *c, uint32_t policy, uint32_t w, uint32_t h, uint32_t dst_addr)
{
	memset(c, 0, sizeof(*c));
	REQUIRE(ferry_device_open(ferryd.uri, &c->dev) == 0);
	REQUIRE(ferry_context_create(c->dev, FERRY_FAMILY_V3D, policy, &c->ctx) == 0);
	REQUIRE(ferry_queue_create_kind(c->ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &c->q) == 0);
	/* A BO first that the replay's fresh ferryd will not have: every address shifts there. */
	struct vbo pad;
	vbo_new(c->ctx, 1 << 20, &pad);
	vbo_new(c->ctx, 3 * CL_SIZE, &c->cl);
	vbo_new(c->ctx, 64 * 1024, &c->src);
	vbo_new(c->ctx, 64 * 1024, &c->dst);
	c->job = (struct v3d_clb_raster_job){
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = V3D_INTERNAL_TYPE_8UI, .src_addr = c->src.addr, .src_stride = w * 4 + 12,
		.dst_addr = dst_addr ? dst_addr : c->dst.addr, .dst_stride = w * 4 + 4,
	};
	c->qms = v3d_clb_raster_tile_alloc_size(42, &c->job);
	vbo_new(c->ctx, (c->qms + 16384 + 4095) & ~4095u, &c->ta);
	vbo_new(c->ctx, 4096, &c->tail);
	if (dst_addr == 1)
		c->job.dst_addr = c->tail.addr + 4096 - 64;
	c->job.tile_alloc_addr = c->ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, 42, c->cl.cpu, CL_SIZE, c->cl.addr);
	v3d_clb_init(&rcl, 42, c->cl.cpu + CL_SIZE, CL_SIZE, c->cl.addr + CL_SIZE);
	v3d_clb_init(&ind, 42, c->cl.cpu + 2 * CL_SIZE, CL_SIZE, c->cl.addr + 2 * CL_SIZE);
	REQUIRE(v3d_clb_raster_bin(&bcl, &c->job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &c->job));
	c->bcl_end = v3d_clb_gpu_addr(&bcl);
	c->rcl_start = c->cl.addr + CL_SIZE;
	c->rcl_end = v3d_clb_gpu_addr(&rcl);
	for (uint32_t i = 0; i < c->src.size; i++)
		c->src.cpu[i] = (uint8_t)(i * 7 + (i >> 8));
	memset(c->dst.cpu, 0xab, c->dst.size);
	ferry_bo_close(pad.bo);
}

static int copy_submit(struct copy *c, uint32_t *seqno)
{
	struct ferry_bo *bos[] = { c->cl.bo, c->ta.bo, c->src.bo, c->dst.bo, c->tail.bo };
	struct ferry_v3d_cl s = {
		.bcl_start = c->cl.addr, .bcl_end = c->bcl_end, .rcl_start = c->rcl_start, .rcl_end = c->rcl_end,
		.qma = c->ta.addr, .qms = c->qms, .qts = c->ta.addr, .bos = bos, .nr_bos = 5,
		.flags = FERRY_SUBMIT_NOTIFY,
	};
	return ferry_v3d_submit_cl(c->q, &s, seqno);
}

static void copy_close(struct copy *c)
{
	ferry_bo_close(c->cl.bo);
	ferry_bo_close(c->ta.bo);
	ferry_bo_close(c->src.bo);
	ferry_bo_close(c->dst.bo);
	ferry_bo_close(c->tail.bo);
	ferry_context_destroy(c->ctx);
	ferry_device_close(c->dev);
}

static void clear_dir(const char *dir)
{
	test_cmd_output(NULL, "rm -rf '%s'/*", dir);
}

static void test_capture_and_decode(void)
{
	clear_dir(cap_dir);
	struct copy c;
	copy_open(&c, FERRY_POLICY_VALIDATED, 32, 16, 0);
	char *a = control("capture start --count 1");
	CHECK(!strncmp(a, "ok\n", 3));
	free(a);
	uint32_t seqno;
	CHECK_EQ(copy_submit(&c, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, WAIT_NS), 0);
	a = control("capture status");
	CHECK(strstr(a, "capture: off\n") && strstr(a, "captured: 1\n") && strstr(a, "errors: 0\n"));
	free(a);
	char ses[256], rd[256];
	REQUIRE(find_file(cap_dir, ".ferrycap", ses, sizeof(ses)) == 1);
	CHECK_EQ(find_file(cap_dir, ".rd", rd, sizeof(rd)), 0); /* V3D has no .rd */
	struct stat st;
	CHECK(stat(ses, &st) == 0 && (st.st_mode & 0777) == 0600);

	char *out;
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), ses), 0);
	char rcl[64];
	snprintf(rcl, sizeof(rcl), "rcl 0x%08x..0x%08x", c.rcl_start, c.rcl_end);
	CHECK(strstr(out, "family v3d") && strstr(out, "v3d_submit_cl") && strstr(out, rcl));
	CHECK(strstr(out, "TILE_BINNING_MODE_CFG") && strstr(out, "STORE_TILE_BUFFER_GENERAL") &&
	      strstr(out, "END_OF_RENDERING"));
	unsigned snaps = 0;
	for (const char *p = out; (p = strstr(p, "BO_SNAPSHOT")); p++)
		snaps++;
	CHECK_EQ(snaps, 5u); /* every BO the submit lists */
	if (snaps != 5 || !strstr(out, "END_OF_RENDERING"))
		fprintf(stderr, "decode said:\n%.6000s\n", out);
	free(out);

	/* Truncated: a clear error naming the file. */
	char bad[256];
	snprintf(bad, sizeof(bad), "%s/cut.ferrycap", work);
	REQUIRE(stat(ses, &st) == 0);
	CHECK_EQ(test_cmd_output(NULL, "head -c %lld '%s' > '%s'", (long long)st.st_size - 100, ses, bad), 0);
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), bad), 1);
	CHECK(strstr(out, bad) && strstr(out, "truncated"));
	free(out);

	/* Replayed on a fresh ferryd (no padding BO there: every BO lands elsewhere), the lists
	 * relocated: the destination gets the same bytes the original job wrote. */
	CHECK(c.dst.cpu[0] != 0xab && c.dst.cpu[c.job.dst_stride * 3 + 5] != 0xab);
	char dump[160];
	snprintf(dump, sizeof(dump), "%s/dump", work);
	int rs = test_cmd_output(&out, "'%s' replay '%s' --dump-bo '%s'", ferry_bin(), ses, dump);
	CHECK_EQ(rs, 0);
	CHECK(strstr(out, "submit 0: ") && strstr(out, "fence 0 ok"));
	if (rs || !strstr(out, "fence 0 ok"))
		fprintf(stderr, "replay said:\n%s\n", out);
	free(out);
	char dst_dump[512];
	snprintf(dst_dump, sizeof(dst_dump), "%s/s0000-c*-b%u-0x*.bin", dump, ferry_bo_id(c.dst.bo));
	CHECK_EQ(test_cmd_output(&out, "f=$(ls %s) && cat \"$f\" && echo \"$f\"", dst_dump), 0);
	REQUIRE(out);
	CHECK(!memcmp(out, c.dst.cpu, c.dst.size));
	char orig_name[32];
	snprintf(orig_name, sizeof(orig_name), "-0x%x.bin", c.dst.addr);
	CHECK(strstr(out + c.dst.size, ".bin") && !strstr(out + c.dst.size, orig_name)); /* it did move */
	free(out);
	copy_close(&c);
}

/* The fault of a passthrough job, on the original and in the replay: the same packet of the
 * same list; where the address was unmapped it stays so, where it was inside a BO it moves. */
static void fault_case(uint32_t dst_mode)
{
	if (itest_sim_only("V3D fault capture and replay", "the v3d kernel reports no MMU faults"))
		return;
	clear_dir(cap_dir);
	struct copy c;
	copy_open(&c, FERRY_POLICY_PASSTHROUGH, 16, 16, dst_mode);
	free(control("capture start --count 1"));
	uint32_t seqno;
	CHECK_EQ(copy_submit(&c, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, WAIT_NS), -EIO);
	const struct ferry_fault_info *fi = itest_await_fault(c.dev, c.ctx);
	REQUIRE(fi);
	char ses[256];
	REQUIRE(find_file(cap_dir, ".ferrycap", ses, sizeof(ses)) == 1);
	char *out;
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s'", ferry_bin(), ses), 0);
	CHECK(strstr(out, "fence -5 fault (EIO)") != NULL);
	unsigned long long iova = 0, ib = 0;
	unsigned op = 0;
	const char *line = strstr(out, "  fault: ");
	const char *at = line ? strstr(line, " iova ") : NULL;
	CHECK(at && sscanf(at, " iova %llx ib %llx dword %*u level %*u opcode %x", &iova, &ib, &op) == 3);
	/* The faulting packet: same opcode, same offset in the list's BO. */
	CHECK_EQ(op, fi->opcode);
	CHECK(fi->ib_iova >= c.cl.addr && fi->ib_iova < c.cl.addr + c.cl.size);
	if (dst_mode == 1) {
		/* Inside tail, running past its end: moved with tail, same distance past it. */
		CHECK(fi->iova >= c.tail.addr + 4096u && fi->iova < c.tail.addr + 8192u);
		CHECK(iova != fi->iova && (iova & 0xfff) == (fi->iova & 0xfff));
	} else {
		CHECK_EQ(iova, fi->iova);
	}
	/* The packet is where the list's BO went: moved, at the same offset in its page. */
	CHECK(ib != fi->ib_iova && (ib & 0xfff) == (fi->ib_iova & 0xfff));
	if (!line || op != fi->opcode)
		fprintf(stderr, "original: iova 0x%llx ib 0x%llx opcode 0x%x\nreplay said:\n%s\n",
			(unsigned long long)fi->iova, (unsigned long long)fi->ib_iova, fi->opcode, out);
	free(out);
	copy_close(&c);
}

static void test_fault_unmapped(void)
{
	fault_case(0xf0000000u);
}

static void test_fault_past_bo(void)
{
	fault_case(1);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/ferry-capv3d-XXXXXX");
	REQUIRE(mkdtemp(root));
	snprintf(cap_dir, sizeof(cap_dir), "%s/cap", root);
	snprintf(work, sizeof(work), "%s/work", root);
	REQUIRE(mkdir(cap_dir, 0700) == 0 && mkdir(work, 0700) == 0);
	char path[4096];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *extra[] = { "--capture-dir", cap_dir, "--v3d-tenancy=shared", "--allow-passthrough",
				"--log-level", "warn", NULL };
	REQUIRE(ferryd_spawn(path, "v3d-4.2", extra, true, 30000, &ferryd) == 0);
	RUN_TEST(test_capture_and_decode);
	RUN_TEST(test_fault_unmapped);
	RUN_TEST(test_fault_past_bo);
	int st = ferryd_stop(&ferryd, 10000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		ferryd_dump_log(&ferryd, 40);
	test_cmd_output(NULL, "rm -rf '%s'", root);
	return test_finish();
}
