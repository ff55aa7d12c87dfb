/* Runs the real `ferry decode` (path in argv[1]) on V3D inputs written to a temporary directory:
 * raw control lists with --family v3d (version given and detected), the option errors, PM4 staying
 * the default family, and a real fault report of the simulated V3D (a render list whose store hits
 * unmapped memory) followed by the decode of that list's buffer at the address the report names. */
#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "cmd_output.h"
#include "decode_test_util.h"
#include "ferry/hw/v3d_cl.h"
#include "v3d_cl_builder.h"
#include "v3dsim_util.h"

static const char *ferry;
static char dir[] = "/tmp/ferry-v3d-decode-XXXXXX";

static void write_file(const char *name, const void *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	REQUIRE(f);
	REQUIRE(fwrite(data, 1, len, f) == len);
	REQUIRE(fclose(f) == 0);
}

/* Runs "ferry decode ARGS" in dir with stderr folded into stdout; returns the exit code. */
static int run(const char *args, char **output)
{
	return test_cmd_output(output, "cd '%s' && '%s' decode %s", dir, ferry, args);
}

/* A v3dv copy job's render list at gpu_base with its generic tile list 0x800 further, in one
 * 4 KiB buffer (so the dump alone lets the tile list be followed). */
static void build_rcl(uint8_t *mem, int ver, uint32_t gpu_base, uint32_t src, uint32_t dst, bool fill)
{
	static const uint32_t color[4] = { 0xff0000ff, 0, 0, 0 };
	memset(mem, 0, 4096);
	struct v3d_clb r, t;
	v3d_clb_init(&r, ver, mem, 0x800, gpu_base);
	v3d_clb_init(&t, ver, mem + 0x800, 0x800, gpu_base + 0x800);
	struct v3d_clb_raster_job job = {
		.width = 16, .height = 16, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = ver == V3D_VER_42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI, .src_addr = src, .src_stride = 64,
		.dst_addr = dst, .dst_stride = 64, .tile_alloc_addr = gpu_base + 0xc00, .clear_color = fill ? color : NULL,
	};
	REQUIRE(v3d_clb_raster_render(&r, &t, &job));
}

static void test_raw_v3d(void)
{
	static uint8_t mem[4096];
	build_rcl(mem, V3D_VER_42, 0x140000, 0x200000, 0x300000, false);
	write_file("rcl42.bin", mem, sizeof(mem));
	char *out;
	CHECK_EQ(run("--family v3d --v3d-ver 42 --base 0x140000 rcl42.bin", &out), 0);
	CHECK_HAS(out, "raw V3D control list rcl42.bin: 4096 bytes at 0x00140000, V3D 4.2 (given)\n"
		       "@buffer CL_0x140000\n@format ctrllist  /* [CL_0x140000 + 0x0] 0x00140000, V3D 4.2 */\n"
		       "0x00140000 +0x0000  TILE_RENDERING_MODE_CFG_COMMON  number_of_render_targets = 1, "
		       "image_width_pixels = 16, image_height_pixels = 16,");
	CHECK_HAS(out, "START_ADDRESS_OF_GENERIC_TILE_LIST  start = [CL_0x140000 + 0x800], end = [CL_0x140000 + 0x820]\n"
		       "  @buffer CL_0x140000\n"
		       "  @format ctrllist  /* [CL_0x140000 + 0x800] 0x00140800, generic tile list from 0x00140052 */\n");
	CHECK_HAS(out, "  0x00140811 +0x0811  STORE_TILE_BUFFER_GENERAL  buffer_to_store = rt0, memory_format = raster,");
	CHECK_HAS(out, "height_in_ub_or_stride = 64, height = 0, address = 0x00300000\n");
	/* after HALT: the tile list further on is not zero, so the rest is only counted */
	CHECK_HAS(out, "0x0014005e +0x005e  END_OF_RENDERING\n0x0014005f +0x005f  HALT\n"
		       "/* 4000 bytes after HALT not decoded */\n");
	CHECK_HAS(out, "\n26 packets, 2 lists, 0 unknown opcodes, 0 truncated, 0 cycles, 0 targets not in the dump, "
		       "0 shader records\n");
	free(out);

	/* the version found from the content: a 7.1 fill has packets 4.2 lacks */
	build_rcl(mem, V3D_VER_71, 0x140000, 0x200000, 0x300000, true);
	write_file("rcl71.bin", mem, sizeof(mem));
	CHECK_EQ(run("--family v3d --base 0x140000 rcl71.bin", &out), 0);
	CHECK_HAS(out, "4096 bytes at 0x00140000, V3D 7.1 (detected)\n");
	CHECK_HAS(out, "TILE_RENDERING_MODE_CFG_RENDER_TARGET_PART1  render_target_number = 0,");
	CHECK_HAS(out, "clear_color_low_bits = 0xff0000ff\n");
	CHECK_HAS(out, "  CLEAR_RENDER_TARGETS\n");
	free(out);

	/* --no-follow: the tile list is named, not decoded */
	CHECK_EQ(run("--v3d-ver 71 --no-follow --base 0x140000 rcl71.bin", &out), 0);
	CHECK_LACKS(out, "generic tile list from");
	CHECK_HAS(out, "0 shader records\n");
	free(out);

	/* an unknown opcode stops the list, the command still succeeds */
	const uint8_t bad[] = { V3D_CL_NOP, V3D_CL_FLUSH, 0xff, V3D_CL_NOP };
	write_file("bad.bin", bad, sizeof(bad));
	CHECK_EQ(run("--v3d-ver 42 bad.bin", &out), 0);
	CHECK_HAS(out, "0x00000002 +0x0002  ?? unknown opcode 0xff (no such V3D 4.2 packet): decoding of this list stops");
	CHECK_HAS(out, "2 packets, 1 lists, 1 unknown opcodes, 0 truncated");
	free(out);

	/* PM4 stays the default family for raw dumps */
	CHECK_EQ(run("rcl42.bin", &out), 0);
	CHECK_HAS(out, "raw PM4 dump rcl42.bin: 1024 dwords at 0x0\n");
	CHECK_LACKS(out, "V3D");
	free(out);
}

static void test_option_errors(void)
{
	char *out;
	CHECK_EQ(run("--v3d-ver 33 rcl42.bin", &out), 2);
	CHECK_HAS(out, "ferry decode: unknown --v3d-ver '33' (42 or 71)\n");
	free(out);
	CHECK_EQ(run("--family mali rcl42.bin", &out), 2);
	CHECK_HAS(out, "ferry decode: unknown family 'mali' (pm4 or v3d)\n");
	free(out);
	CHECK_EQ(run("--family v3d --format rd rcl42.bin", &out), 2);
	CHECK_HAS(out, ".rd captures hold Adreno command streams, not V3D lists");
	free(out);
	CHECK_EQ(run("--family v3d --base 0xfffff800 rcl42.bin", &out), 1);
	CHECK_HAS(out, "ferry decode: rcl42.bin: 4096 bytes at 0xfffff800 do not fit V3D's 4 GiB address space\n");
	free(out);
	CHECK_EQ(run("--family v3d missing.bin", &out), 1);
	CHECK_HAS(out, "missing.bin: cannot open");
	free(out);
}

/* A real simulated-V3D fault: a render list whose store targets unmapped memory. The report is
 * recognised whatever the family, its opcode named; then the list's buffer is decoded at the
 * address the report gives. */
static void test_sim_report(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	struct tbo cl = tbo_new(kd, 4096), data = tbo_new(kd, 64 * 1024);
	uint32_t handles[2] = { cl.handle, data.handle };
	const uint32_t unmapped = 0x7ff00000u;
	uint8_t mem[4096];
	build_rcl(mem, V3D_VER_42, cl.offset, data.offset, unmapped, false);
	/* no bin job: the one tile's binned list (tile alloc, at +0xc00) is a bare return */
	mem[0xc00] = V3D_CL_RETURN_FROM_SUB_LIST;
	memcpy(cl.map, mem, sizeof(mem));
	uint32_t out_sync = syncobj_new(kd, false);
	struct drm_v3d_submit_cl s = { .rcl_start = cl.offset, .rcl_end = cl.offset + 0x5f,
				       .bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = 2,
				       .out_sync = out_sync };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	CHECK_EQ(syncobj_wait1(kd, out_sync), 0);
	char report[8192];
	ssize_t n = kd->ops->coredump(kd, report, sizeof(report));
	REQUIRE(n > 0);
	write_file("v3d_fault.txt", report, (size_t)n);
	write_file("v3d_cl.bin", cl.map, 4096);

	char *out, args[160], want[160];
	CHECK_EQ(run("v3d_fault.txt", &out), 0);
	CHECK_HAS(out, "module: v3d\n");
	CHECK_HAS(out, "  - unit=CLE\n");
	CHECK_HAS(out, "  opcode: 0x1d  /* STORE_TILE_BUFFER_GENERAL */\n");
	snprintf(want, sizeof(want), "ferry decode --family v3d --v3d-ver 42 --base 0x%x FILE", cl.offset);
	CHECK_HAS(out, want);
	CHECK_LACKS(out, "malformed");
	free(out);
	/* --family v3d does not turn the report into a raw list */
	CHECK_EQ(run("--family v3d v3d_fault.txt", &out), 0);
	CHECK_HAS(out, "  /* STORE_TILE_BUFFER_GENERAL */\n");
	free(out);

	snprintf(args, sizeof(args), "--family v3d --v3d-ver 42 --base 0x%x v3d_cl.bin", cl.offset);
	CHECK_EQ(run(args, &out), 0);
	snprintf(want, sizeof(want), "STORE_TILE_BUFFER_GENERAL  buffer_to_store = rt0,");
	CHECK_HAS(out, want);
	CHECK_HAS(out, "address = 0x7ff00000\n");
	free(out);

	tbo_free(kd, &cl);
	tbo_free(kd, &data);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-ferry\n", argv[0]);
		return 2;
	}
	/* meson passes a path relative to the build directory; run() changes directory first */
	static char ferry_path[PATH_MAX];
	REQUIRE(realpath(argv[1], ferry_path));
	ferry = ferry_path;
	REQUIRE(mkdtemp(dir));
	RUN_TEST(test_raw_v3d);
	RUN_TEST(test_option_errors);
	RUN_TEST(test_sim_report);
	if (!getenv("KEEP_DECODE_DIR"))
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	else
		fprintf(stderr, "kept %s\n", dir);
	return test_finish();
}
