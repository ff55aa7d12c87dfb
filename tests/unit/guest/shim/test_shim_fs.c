/* The file system the shim and the fake kernel present: /dev/dri with one render node (and, for
 * V3D, a listed but unopenable vc4 card0), the sysfs files libdrm reads, the node fd surviving
 * dup / dup2 / F_DUPFD_CLOEXEC until its last close, and no node at all when there is no GPU. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "shim_test.h"
#include "test.h"

#define NODE "/dev/dri/renderD128"
#define NODE_SYSFS "/sys/dev/char/226:128"

static struct st_env env;

static void check_node_stat(const struct stat *st)
{
	CHECK(S_ISCHR(st->st_mode));
	CHECK_EQ(major(st->st_rdev), 226);
	CHECK_EQ(minor(st->st_rdev), 128);
}

static void test_stat_family(void)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	CHECK_EQ(stat(NODE, &st), 0);
	check_node_stat(&st);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(lstat(NODE, &st), 0);
	check_node_stat(&st);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(fstatat(AT_FDCWD, NODE, &st, 0), 0);
	check_node_stat(&st);
	/* Repeated slashes name the same node. */
	memset(&st, 0, sizeof(st));
	CHECK_EQ(stat("/dev//dri///renderD128", &st), 0);
	check_node_stat(&st);

	int fd = open(NODE, O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(fstat(fd, &st), 0);
	check_node_stat(&st);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	check_node_stat(&st);
	CHECK_EQ(close(fd), 0);

	CHECK_EQ(stat("/dev/dri", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(lstat(NODE_SYSFS "/device/subsystem", &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(stat(NODE_SYSFS "/device/subsystem", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(stat(NODE_SYSFS "/device/uevent", &st), 0);
	CHECK(S_ISREG(st.st_mode));
}

static void test_dev_dri_listing(void)
{
	DIR *d = opendir("/dev/dri");
	REQUIRE(d != NULL);
	bool dot = false, dotdot = false, render = false, card0 = false;
	unsigned others = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0)
			dot = true;
		else if (strcmp(e->d_name, "..") == 0)
			dotdot = true;
		else if (strcmp(e->d_name, "renderD128") == 0)
			render = true;
		else if (strcmp(e->d_name, "card0") == 0)
			card0 = true;
		else
			others++;
	}
	CHECK(dot && dotdot && render);
	CHECK_EQ(card0, !env.msm); /* V3D: v3dv looks for the vc4 primary node beside it */
	CHECK_EQ(others, 0);
	/* A second pass after rewinddir sees the same entries. */
	rewinddir(d);
	unsigned again = 0;
	while (readdir(d) != NULL)
		again++;
	CHECK_EQ(again, env.msm ? 3 : 4);
	CHECK_EQ(closedir(d), 0);

	errno = 0;
	CHECK(opendir("/dev/dri/by-path") == NULL && errno == ENOENT);
	errno = 0;
	CHECK(opendir(NODE) == NULL && errno == ENOTDIR);
}

static void test_sysfs_links(void)
{
	char buf[PATH_MAX];
	memset(buf, 0, sizeof(buf));
	ssize_t n = readlink(NODE_SYSFS "/device/subsystem", buf, sizeof(buf) - 1);
	CHECK(n > 0);
	if (n > 0) {
		buf[n] = '\0';
		const char *slash = strrchr(buf, '/');
		CHECK(slash && strcmp(slash, "/platform") == 0);
	}
	char *rp = realpath(NODE_SYSFS "/device/subsystem", NULL);
	CHECK(rp && strcmp(rp, "/sys/bus/platform") == 0);
	free(rp);
	char fixed[PATH_MAX];
	CHECK(realpath(NODE_SYSFS "/device/subsystem", fixed) == fixed && strcmp(fixed, "/sys/bus/platform") == 0);
	/* readlink of something that is not a link */
	errno = 0;
	CHECK(readlink(NODE_SYSFS "/device/uevent", buf, sizeof(buf)) == -1 && errno == EINVAL);
	/* A 3-byte buffer gets the link's first 3 bytes, without a terminator. */
	memset(buf, 'x', 8);
	CHECK_EQ(readlink(NODE_SYSFS "/device/subsystem", buf, 3), 3);
	CHECK(memcmp(buf, "../x", 4) == 0);
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	while (got + 1 < len && (r = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
}

static void test_uevent(void)
{
	const char *compat = env.msm ? "OF_COMPATIBLE_0=qcom,adreno-630.2\n" : "OF_COMPATIBLE_0=brcm,2711-v3d\n";
	if (env.msm && strcmp(env.gpu, "a630") != 0)
		compat = "OF_COMPATIBLE_0=qcom,adreno-";
	char text[2048];
	int fd = open(NODE_SYSFS "/device/uevent", O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	read_all(fd, text, sizeof(text));
	CHECK_EQ(close(fd), 0);
	CHECK(strstr(text, compat) != NULL);
	CHECK(strstr(text, env.msm ? "DRIVER=msm\n" : "DRIVER=v3d\n") != NULL);
	CHECK(strstr(text, "OF_FULLNAME=/") != NULL);

	FILE *f = fopen(NODE_SYSFS "/device/uevent", "re");
	REQUIRE(f != NULL);
	char line[256];
	bool seen = false;
	while (fgets(line, sizeof(line), f))
		seen |= strncmp(line, compat, strlen(compat)) == 0;
	CHECK(seen);
	CHECK_EQ(fclose(f), 0);

	fd = open(NODE_SYSFS "/uevent", O_RDONLY);
	REQUIRE(fd >= 0);
	read_all(fd, text, sizeof(text));
	close(fd);
	CHECK(strstr(text, "MAJOR=226\nMINOR=128\n") != NULL);
	CHECK(strstr(text, "DEVNAME=dri/renderD128\n") != NULL);

	/* sysfs attributes are read-only here. */
	errno = 0;
	CHECK(open(NODE_SYSFS "/device/uevent", O_RDWR) == -1 && errno == EACCES);
	errno = 0;
	CHECK(fopen(NODE_SYSFS "/device/uevent", "w") == NULL && errno == EACCES);
}

static void test_access_and_hidden(void)
{
	CHECK_EQ(access(NODE, R_OK | W_OK), 0);
	CHECK_EQ(access("/dev/dri", F_OK), 0);
	CHECK_EQ(faccessat(AT_FDCWD, NODE, R_OK | W_OK, 0), 0);
	errno = 0;
	CHECK(access(NODE_SYSFS "/device/uevent", W_OK) == -1 && errno == EACCES);
	CHECK_EQ(access(NODE_SYSFS "/device/uevent", R_OK), 0);

	/* Everything else under /dev/dri and the DRM sysfs is hidden, whatever the host has. */
	const char *hidden[] = { "/dev/dri/renderD129", "/dev/dri/card1", "/dev/dri/by-path",
				 "/sys/dev/char/226:129", "/sys/class/drm/renderD129", NODE "/x" };
	for (unsigned i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		struct stat st;
		errno = 0;
		CHECK(stat(hidden[i], &st) == -1 && errno == ENOENT);
		errno = 0;
		CHECK(access(hidden[i], F_OK) == -1 && errno == ENOENT);
		errno = 0;
		CHECK(open(hidden[i], O_RDWR) == -1 && errno == ENOENT);
	}

	struct stat st;
	if (env.msm) {
		errno = 0;
		CHECK(stat("/dev/dri/card0", &st) == -1 && errno == ENOENT);
	} else {
		/* vc4's primary node: a char device 226:0 that cannot be opened. */
		CHECK_EQ(stat("/dev/dri/card0", &st), 0);
		CHECK(S_ISCHR(st.st_mode) && major(st.st_rdev) == 226 && minor(st.st_rdev) == 0);
		errno = 0;
		CHECK(open("/dev/dri/card0", O_RDWR | O_CLOEXEC) == -1 && errno == EACCES);
	}
	/* Paths outside ferry's part still reach the real file system. */
	CHECK_EQ(stat("/", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	errno = 0;
	CHECK(stat("/dev/ferry-does-not-exist", &st) == -1 && errno == ENOENT);
}

/* A BO of this open, and a family ioctl that succeeds only while the handle is valid on fd. */
static uint32_t make_bo(int fd)
{
	if (env.msm) {
		struct drm_msm_gem_new n = { .size = 4096, .flags = MSM_BO_WC };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n) == 0);
		return n.handle;
	}
	struct drm_v3d_create_bo c = { .size = 4096 };
	REQUIRE(st_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &c) == 0);
	return c.handle;
}

static int probe_bo(int fd, uint32_t handle)
{
	if (env.msm) {
		struct drm_msm_gem_info i = { .handle = handle, .info = MSM_INFO_GET_IOVA };
		return st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i);
	}
	struct drm_v3d_get_bo_offset o = { .handle = handle };
	return st_ioctl(fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o);
}

static void test_dup_keeps_open(void)
{
	int fd = open(NODE, O_RDWR | O_CLOEXEC);
	REQUIRE(fd >= 0);
	uint32_t h = make_bo(fd);
	CHECK_EQ(probe_bo(fd, h), 0);

	int d1 = dup(fd);
	REQUIRE(d1 >= 0);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(probe_bo(d1, h), 0); /* the open lives on in its dup */
	struct stat st;
	CHECK_EQ(fstat(d1, &st), 0);
	check_node_stat(&st);

	int d2 = dup2(d1, 150);
	CHECK_EQ(d2, 150);
	int d3 = fcntl(d1, F_DUPFD_CLOEXEC, 200);
	CHECK(d3 >= 200);
	CHECK(fcntl(d3, F_GETFD) & FD_CLOEXEC);
	CHECK_EQ(close(d1), 0);
	CHECK_EQ(probe_bo(d2, h), 0);
	CHECK_EQ(probe_bo(d3, h), 0);
	/* dup2 over a node fd replaces it: d2 now names /dev/null, d3 still the node. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(devnull >= 0);
	CHECK_EQ(dup2(devnull, d2), d2);
	CHECK_EQ(probe_bo(d2, h), -ENOTTY);
	CHECK_EQ(probe_bo(d3, h), 0);
	CHECK_EQ(close(devnull), 0);
	CHECK_EQ(close(d2), 0);
	CHECK_EQ(probe_bo(d3, h), 0);
	CHECK_EQ(close(d3), 0);
	CHECK_EQ(probe_bo(d3, h), -EBADF);

	/* A new open is a new file: the old handle means nothing there. */
	int fresh = open(NODE, O_RDWR | O_CLOEXEC);
	REQUIRE(fresh >= 0);
	CHECK(probe_bo(fresh, h) != 0);
	CHECK_EQ(close(fresh), 0);
}

/* ---- the child run with no GPU behind the node ---- */

static int child_no_gpu(void)
{
	struct stat st;
	int bad = 0;
	errno = 0;
	bad += !(stat(NODE, &st) == -1 && errno == ENOENT);
	errno = 0;
	bad += !(open(NODE, O_RDWR) == -1 && errno == ENOENT);
	errno = 0;
	bad += !(access(NODE, F_OK) == -1 && errno == ENOENT);
	errno = 0;
	bad += !(opendir("/dev/dri") == NULL && errno == ENOENT);
	errno = 0;
	bad += !(open(NODE_SYSFS "/device/uevent", O_RDONLY) == -1 && errno == ENOENT);
	char buf[64];
	bad += readlink(NODE_SYSFS "/device/subsystem", buf, sizeof(buf)) != -1;
	fprintf(stderr, "child: %d bad\n", bad);
	return bad ? 1 : 0;
}

static void test_no_gpu(void)
{
	char out[8192];
	const char *args[] = { "--child-no-gpu", NULL };
	/* The preload stays; only what it would connect to is missing. */
	const char *e = env.mode == ST_MODE_SHIM ? "FERRY_SOCKET=unix:/nonexistent/ferry-test.sock" : "FERRY_GPU=a999";
	int st = st_rerun(&env, args, e, out, sizeof(out));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, "child: 0 bad") != NULL);
	/* One error line says why the node is missing. */
	CHECK(strstr(out, "ferry-shim: ") != NULL);
	CHECK(strstr(out, "/dev/dri stays empty") != NULL);
	if (env.mode == ST_MODE_SHIM)
		CHECK(strstr(out, "cannot reach ferryd at unix:/nonexistent/ferry-test.sock") != NULL);
	else
		CHECK(strstr(out, "no simulated GPU 'a999'") != NULL);
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child-no-gpu") == 0)
		return child_no_gpu();
	st_setup(argc, argv, &env);
	RUN_TEST(test_stat_family);
	RUN_TEST(test_dev_dri_listing);
	RUN_TEST(test_sysfs_links);
	RUN_TEST(test_uevent);
	RUN_TEST(test_access_and_hidden);
	RUN_TEST(test_dup_keeps_open);
	RUN_TEST(test_no_gpu);
	st_teardown(&env);
	return test_finish();
}
