/* Remote fault reproduction: captures taken on one ferryd replay on another with the same fence
 * results and the same fault. `tcp`: ferryd B listens on tcp inside its own network namespace
 * (a veth pair away, as another machine; loopback when namespaces are unavailable): an
 * operator's capture from A replays on B with `ferry replay --server tcp:`, a guest-side capture
 * (`ferry capture run`) of a program run against B replays on A over unix. Skipped (77) while
 * libferry cannot create a context over tcp. `local`: the guest-side capture over unix, and
 * control-socket commands given a tcp: server. `workload [URI]`: the faulting program itself. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd_output.h"
#include "control_client.h"
#include "itest.h"
#include "test.h"

#define FAULT_IOVA 0x7f00000000ull
#define TCP_PORT   "7131"

static struct ferryd_proc fa, fb;
static bool fb_up;
static char root[64], cap_dir[96], crash_a[96], crash_b[96], gdir[96];
static char self_exe[PATH_MAX];
static char ns[32], veth[16];
static bool have_ns;
static char tcp_uri[64];

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *ferry_bin(void)
{
	const char *f = getenv("FERRY");
	REQUIRE(f && f[0]);
	return f;
}

/* The faulting program: submit 0 writes 0x1234 into the data BO, submit 1 writes to an address
 * no BO holds. Exit 0 when the fences say 0 and -EIO. */
static int workload(const char *uri)
{
	struct itest_client c = { 0 };
	struct itest_bo ib, data;
	if (ferry_device_open(uri, &c.dev) < 0 ||
	    ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_PASSTHROUGH, &c.ctx) < 0 ||
	    ferry_queue_create(c.ctx, 0, &c.q) < 0 || itest_bo_new(c.ctx, 4096, &ib) < 0 ||
	    itest_bo_new(c.ctx, 4096, &data) < 0) {
		fprintf(stderr, "workload: %s\n", c.dev ? ferry_device_last_error(c.dev) : "no device");
		return 2;
	}
	memset(data.cpu, 0, 4096);
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib.cpu, 16);
	uint32_t v = 0x1234;
	pm4_mem_write(&pb, data.iova + 20, &v, 1);
	uint32_t first = pm4_builder_bytes(&pb);
	pm4_builder_init(&pb, ib.cpu + 16, 16);
	pm4_nop(&pb, 2);
	v = 0xbad;
	pm4_mem_write(&pb, FAULT_IOVA, &v, 1);
	uint32_t second = pm4_builder_bytes(&pb);
	uint32_t s0, s1;
	int r0 = itest_submit(&c, ib.bo, 0, first, &data.bo, 1, &s0);
	if (r0 == 0)
		r0 = ferry_fence_wait(c.q, s0, ITEST_WAIT_NS);
	int r1 = itest_submit(&c, ib.bo, 64, second, &data.bo, 1, &s1);
	if (r1 == 0)
		r1 = ferry_fence_wait(c.q, s1, ITEST_WAIT_NS);
	printf("workload: fences %d %d, data %#x\n", r0, r1, data.cpu[5]);
	bool ok = r0 == 0 && r1 == -EIO && data.cpu[5] == 0x1234;
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
	return ok ? 0 : 3;
}

/* Files in dir ending in suffix; the last one seen in last. */
static int count_files(const char *dir, const char *suffix, char *last, size_t len)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name), s = strlen(suffix);
		if (l > s && !strcmp(e->d_name + l - s, suffix)) {
			n++;
			if (last)
				snprintf(last, len, "%s/%s", dir, e->d_name);
		}
	}
	if (d)
		closedir(d);
	return n;
}

static void clear_dir(const char *dir)
{
	test_cmd_output(NULL, "rm -rf '%s' && mkdir -m 700 '%s'", dir, dir);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = calloc(1, 1 << 20);
	REQUIRE(text);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* The crash report ferryd wrote into dir (waits up to 10 s). */
static char *wait_report(const char *dir)
{
	char path[256];
	for (int64_t end = now_ms() + 10000; now_ms() < end; usleep(20000))
		if (count_files(dir, ".txt", path, sizeof(path)) > 0)
			return read_text(path);
	return NULL;
}

static bool line_of(const char *text, const char *key, char *buf, size_t len)
{
	const char *p = text ? strstr(text, key) : NULL;
	if (!p)
		return false;
	const char *end = strchr(p, '\n');
	snprintf(buf, len, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	return true;
}

/* The "submit N: ... fence ..." lines of a replay's output, joined. */
static void fence_lines(const char *out, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const char *p = out; p && (p = strstr(p, "submit ")); p++) {
		if (p != out && p[-1] != '\n')
			continue;
		const char *end = strchr(p, '\n');
		size_t have = strlen(buf);
		snprintf(buf + have, len - have, "%.*s\n", end ? (int)(end - p) : (int)strlen(p), p);
	}
}

/* A replay reproduces report's fault: exit 0, the fault at the report's address and crash
 * location. The fence lines go to fences for comparison. */
static bool check_fault_replay(const char *what, const char *out, int st, const char *report, char *fences,
			       size_t len)
{
	char iova[128] = "", where[256] = "";
	CHECK_EQ(st, 0);
	CHECK(line_of(report, "fault-iova: ", iova, sizeof(iova)));
	CHECK(line_of(report, "ESTIMATED CRASH LOCATION: ", where, sizeof(where)));
	CHECK(strstr(iova, "0x0000007f00000000") != NULL);
	fence_lines(out, fences, len);
	bool ok = st == 0 && strstr(out, "fence -5 fault (EIO)") && iova[0] && strstr(out, iova) && where[0] &&
		  strstr(out, where);
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "%s: report:\n%s\nreplay said:\n%s\n", what, report ? report : "(none)", out);
	return ok;
}

/* ---- network namespace for ferryd B ---- */

static void netns_cleanup(void)
{
	if (have_ns)
		test_cmd_output(NULL, "ip netns del '%s' 2>/dev/null; ip link del '%s' 2>/dev/null", ns, veth);
	have_ns = false;
}

/* B's address: 10.213.X.2 in a fresh namespace behind a veth pair, else loopback. */
static void netns_setup(char *host, size_t len)
{
	unsigned x = (unsigned)getpid() % 250 + 1;
	snprintf(ns, sizeof(ns), "ferry-rr-%ld", (long)getpid());
	snprintf(veth, sizeof(veth), "frr%ua", (unsigned)getpid() % 100000);
	char peer[16];
	snprintf(peer, sizeof(peer), "frr%ub", (unsigned)getpid() % 100000);
	have_ns = true;
	int st = test_cmd_output(NULL,
				 "set -e; ip netns add '%s'; ip link add '%s' type veth peer name '%s' netns '%s';"
				 "ip addr add 10.213.%u.1/24 dev '%s'; ip link set '%s' up;"
				 "ip -n '%s' addr add 10.213.%u.2/24 dev '%s'; ip -n '%s' link set '%s' up;"
				 "ip -n '%s' link set lo up",
				 ns, veth, peer, ns, x, veth, veth, ns, x, peer, ns, peer, ns);
	if (st != 0) {
		fprintf(stderr, "note: no network namespace here (not root, or no ip netns): ferryd B on loopback\n");
		netns_cleanup();
		snprintf(host, len, "127.0.0.1");
		return;
	}
	snprintf(host, len, "10.213.%u.2", x);
}

/* Starts B inside the namespace: the child ferryd_spawn forks inherits it. */
static void start_b(const char *listen)
{
	int orig = -1, target = -1;
	if (have_ns) {
		char path[128];
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
		orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		target = open(path, O_RDONLY | O_CLOEXEC);
		REQUIRE(orig >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0);
	}
	char ferryd_path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) == 0);
	const char *extra[] = { "--listen", listen, "--insecure", "--allow-passthrough", "--crash-dir", crash_b,
				"--log-level", "warn", NULL };
	int r = ferryd_spawn(ferryd_path, "a630", extra, true, 30000, &fb);
	if (have_ns) {
		REQUIRE(setns(orig, CLONE_NEWNET) == 0);
		close(orig);
		close(target);
	}
	REQUIRE(r == 0);
	fb_up = true;
}

static void start_a(void)
{
	char ferryd_path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) == 0);
	const char *extra[] = { "--capture-dir", cap_dir, "--crash-dir", crash_a, "--allow-passthrough",
				"--log-level", "warn", NULL };
	REQUIRE(ferryd_spawn(ferryd_path, "a630", extra, true, 30000, &fa) == 0);
}

/* Whether a context can be made over tcp (the remote layer: BOs and fence pages without fd
 * passing); why gets libferry's reason when not. */
static bool remote_works(char *why, size_t len)
{
	struct itest_client c;
	int r = -1;
	for (int64_t end = now_ms() + 5000; r < 0 && now_ms() < end;) {
		r = ferry_device_open(tcp_uri, &c.dev);
		if (r < 0)
			usleep(50000); /* B may still be binding in its namespace */
	}
	if (r < 0) {
		snprintf(why, len, "cannot connect to %s: %s", tcp_uri, strerror(-r));
		return false;
	}
	c.ctx = NULL;
	c.q = NULL;
	r = ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c.ctx);
	if (r < 0)
		snprintf(why, len, "ContextCreate over %s fails (%s): the remote BO/fence layer is missing",
			 tcp_uri, ferry_device_last_error(c.dev));
	itest_client_close(&c);
	return r == 0;
}

/* ---- tests ---- */

/* (a) The operator's capture on A (unix) of the faulting program replays on B over tcp with A's
 * fence results and fault, as it does on A. */
static void test_operator_capture_replays_over_tcp(void)
{
	clear_dir(cap_dir);
	clear_dir(crash_a);
	char *answer = NULL;
	REQUIRE(control_request(fa.control, "capture start --count 2 --full --format session", 10000, &answer) == 0);
	CHECK(!strncmp(answer, "ok\n", 3));
	free(answer);
	CHECK_EQ(workload(fa.uri), 0);
	char *report = wait_report(crash_a);
	REQUIRE(report);
	char ses[512] = "";
	/* --count 2 stops by itself; one file per submit: the faulting one is seqno 2. */
	CHECK_EQ(count_files(cap_dir, ".ferrycap", NULL, 0), 2);
	DIR *d = opendir(cap_dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strstr(e->d_name, "-s2.ferrycap"))
			snprintf(ses, sizeof(ses), "%s/%s", cap_dir, e->d_name);
	if (d)
		closedir(d);
	REQUIRE(ses[0]);
	char *on_a, *on_b;
	char fa_lines[512], fb_lines[512];
	int sa = test_cmd_output(&on_a, "'%s' replay '%s' --server '%s' 2>&1", ferry_bin(), ses, fa.uri);
	check_fault_replay("replay on A (unix)", on_a, sa, report, fa_lines, sizeof(fa_lines));
	int sb = test_cmd_output(&on_b, "'%s' replay '%s' --server '%s' 2>&1", ferry_bin(), ses, tcp_uri);
	check_fault_replay("replay on B (tcp)", on_b, sb, report, fb_lines, sizeof(fb_lines));
	/* The same fence results, line for line. */
	CHECK(fa_lines[0] && !strcmp(fa_lines, fb_lines));
	if (strcmp(fa_lines, fb_lines))
		fprintf(stderr, "fences on A:\n%s\non B:\n%s\n", fa_lines, fb_lines);
	free(on_a);
	free(on_b);
	free(report);
}

/* Runs the workload under `ferry capture run` against server; returns the capture's path. */
static void capture_run(const char *server, char *path, size_t len)
{
	clear_dir(gdir);
	char *out;
	int st = test_cmd_output(&out, "'%s' capture run --dir '%s' --server '%s' -- '%s' workload 2>&1", ferry_bin(),
				 gdir, server, self_exe);
	CHECK_EQ(st, 0);
	CHECK(strstr(out, "capture: ") != NULL);
	if (st != 0)
		fprintf(stderr, "ferry capture run said:\n%s\n", out);
	free(out);
	CHECK_EQ(count_files(gdir, ".ferrycap", path, len), 1);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
}

/* The data BO's dump after submit 0 holds the workload's 0x1234 at byte 20. */
static void check_dump(const char *dump)
{
	char path[512] = "";
	DIR *d = opendir(dump);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "s0000-c1-b2-", 12))
			snprintf(path, sizeof(path), "%s/%s", dump, e->d_name);
	if (d)
		closedir(d);
	CHECK(path[0]);
	uint32_t v = 0;
	FILE *f = path[0] ? fopen(path, "rb") : NULL;
	CHECK(f && fseek(f, 20, SEEK_SET) == 0 && fread(&v, 4, 1, f) == 1);
	if (f)
		fclose(f);
	CHECK_EQ(v, 0x1234);
}

/* (b) A guest-side capture of the program run against run_on replays on replay_on with the
 * results the program saw and the fault run_on reported. */
static void guest_capture_case(const char *run_on, const char *run_crash, const char *replay_on)
{
	clear_dir(crash_a);
	clear_dir(crash_b);
	char ses[512];
	capture_run(run_on, ses, sizeof(ses));
	char *report = wait_report(run_crash);
	REQUIRE(report);
	char *out, lines[512], dump[128];
	snprintf(dump, sizeof(dump), "%s/dump", root);
	clear_dir(dump);
	int st = test_cmd_output(&out, "'%s' replay '%s' --server '%s' --dump-bo '%s' 2>&1", ferry_bin(), ses, replay_on,
				 dump);
	check_fault_replay("guest-side capture's replay", out, st, report, lines, sizeof(lines));
	/* What the program saw: submit 0 fine, submit 1 the fault, nothing else. */
	CHECK(strstr(lines, "submit 0: ") && strstr(lines, "submit 1: ") && !strstr(lines, "submit 2: "));
	const char *s1 = strstr(lines, "submit 1: ");
	CHECK(s1 && strstr(lines, ": fence 0") < s1 && strstr(s1, "fence -5 fault (EIO)"));
	if (!s1 || !(strstr(lines, ": fence 0") < s1))
		fprintf(stderr, "fence lines:\n%s\n", lines);
	check_dump(dump);
	free(out);
	free(report);
}

static void test_guest_capture_tcp_replays_on_unix(void)
{
	guest_capture_case(tcp_uri, crash_b, fa.uri);
}

static void test_guest_capture_unix(void)
{
	/* fb here is a second unix ferryd (see main). */
	guest_capture_case(fa.uri, crash_a, fb.uri);
	char ses[512];
	CHECK_EQ(count_files(gdir, ".ferrycap", ses, sizeof(ses)), 1);
	/* The file says where it came from, and `ferry decode` reads it as any session. */
	char *out;
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s' 2>&1", ferry_bin(), ses), 0);
	CHECK(strstr(out, "guest-side") != NULL);
	free(out);
	/* FERRY_CAPTURE=PATH names the file itself; an existing file is never overwritten. */
	char path[256];
	snprintf(path, sizeof(path), "%s/named.ferrycap", gdir);
	CHECK_EQ(test_cmd_output(NULL, "FERRY_CAPTURE='%s' FERRY_SOCKET='%s' '%s' workload >/dev/null 2>&1", path,
				 fa.uri, self_exe), 0);
	CHECK(access(path, F_OK) == 0);
	CHECK(test_cmd_output(&out, "FERRY_CAPTURE='%s' FERRY_SOCKET='%s' '%s' workload 2>&1", path, fa.uri,
			      self_exe) != 0);
	CHECK(strstr(out, "cannot create") != NULL);
	free(out);
}

/* V3D: every file of a guest-side capture of `ferry demo --gpu v3d-4.2` (two clients, one of
 * them faulting) replays on a private ferryd; the fault comes back. */
static void test_guest_capture_v3d(void)
{
	clear_dir(gdir);
	char ferryd_path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) == 0);
	char *out;
	int st = test_cmd_output(&out, "'%s' capture run --dir '%s' -- '%s' demo --gpu v3d-4.2 --ferryd '%s' 2>&1",
				 ferry_bin(), gdir, ferry_bin(), ferryd_path);
	CHECK_EQ(st, 0);
	if (st)
		fprintf(stderr, "capture run of the V3D demo said:\n%s\n", out);
	free(out);
	CHECK(count_files(gdir, ".ferrycap", NULL, 0) >= 2);
	int faulted = 0, files = 0;
	DIR *d = opendir(gdir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strstr(e->d_name, ".ferrycap"))
			continue;
		files++;
		st = test_cmd_output(&out, "'%s' replay '%s/%s' 2>&1", ferry_bin(), gdir, e->d_name);
		CHECK_EQ(st, 0);
		CHECK(strstr(out, " 0 refused") != NULL);
		faulted += strstr(out, ", 0 faulted") == NULL;
		if (st || !strstr(out, " 0 refused"))
			fprintf(stderr, "replay of %s said:\n%s\n", e->d_name, out);
		free(out);
	}
	if (d)
		closedir(d);
	CHECK(files >= 2);
	CHECK_EQ(faulted, 1);
}

/* (c) Commands of the operator control socket, given a tcp: server, say it is local. */
static void test_control_is_local(void)
{
	const char *cmds[] = { "status", "capture status", "trace --status" };
	for (int i = 0; i < 3; i++) {
		char *out;
		int st = test_cmd_output(&out, "'%s' %s --server tcp:127.0.0.1:9 2>&1", ferry_bin(), cmds[i]);
		CHECK(st != 0);
		CHECK(strstr(out, "control socket is local") != NULL);
		if (st == 0 || !strstr(out, "control socket is local"))
			fprintf(stderr, "ferry %s --server tcp: said (%d):\n%s\n", cmds[i], st, out);
		free(out);
	}
}

static void cleanup(void)
{
	if (fb_up)
		ferryd_stop(&fb, 10000);
	fb_up = false;
	netns_cleanup();
	test_cmd_output(NULL, "rm -rf '%s'", root);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "workload"))
		return workload(argc >= 3 ? argv[2] : NULL);
	bool tcp = argc >= 2 && !strcmp(argv[1], "tcp");
	REQUIRE(argc >= 2 && (tcp || !strcmp(argv[1], "local")));
	REQUIRE(realpath("/proc/self/exe", self_exe));
	snprintf(root, sizeof(root), "/tmp/ferry-rreplay-XXXXXX");
	REQUIRE(mkdtemp(root));
	snprintf(cap_dir, sizeof(cap_dir), "%s/cap", root);
	snprintf(crash_a, sizeof(crash_a), "%s/crash-a", root);
	snprintf(crash_b, sizeof(crash_b), "%s/crash-b", root);
	snprintf(gdir, sizeof(gdir), "%s/guest", root);
	REQUIRE(mkdir(crash_a, 0700) == 0 && mkdir(crash_b, 0700) == 0 && mkdir(gdir, 0700) == 0);
	start_a();
	if (tcp) {
		char host[32], listen[64], why[512];
		netns_setup(host, sizeof(host));
		snprintf(listen, sizeof(listen), "tcp:%s:%s", host, TCP_PORT);
		snprintf(tcp_uri, sizeof(tcp_uri), "tcp:%s:%s", host, TCP_PORT);
		/* Plain tcp (ferryd B --insecure): TLS is the tls tests' business. The ferry commands
		 * and programs this test runs inherit it. */
		setenv("FERRY_INSECURE", "1", 1);
		start_b(listen);
		if (!remote_works(why, sizeof(why))) {
			printf("SKIP remote replay over tcp: %s\n", why);
			ferryd_stop(&fa, 10000);
			cleanup();
			return 77;
		}
		RUN_TEST(test_operator_capture_replays_over_tcp);
		RUN_TEST(test_guest_capture_tcp_replays_on_unix);
	} else {
		char ferryd_path[PATH_MAX];
		REQUIRE(ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) == 0);
		const char *extra[] = { "--allow-passthrough", "--crash-dir", crash_b, "--log-level", "warn", NULL };
		REQUIRE(ferryd_spawn(ferryd_path, "a630", extra, true, 30000, &fb) == 0);
		fb_up = true;
		RUN_TEST(test_guest_capture_unix);
		RUN_TEST(test_guest_capture_v3d);
		RUN_TEST(test_control_is_local);
	}
	int st = ferryd_stop(&fa, 10000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		ferryd_dump_log(&fa, 40);
	cleanup();
	return test_finish();
}
