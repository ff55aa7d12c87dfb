/* `ferry bench --clients N`: many clients of one spawned ferryd at once. ferryd's memory per idle
 * client; one client's pipelined CP_NOP rate against N clients pipelining together (aggregate,
 * per-client spread, fairness); submit+wait latency alone and under that load. Each client is a
 * forked process with its own connection, context and queue. Figures, not a test. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_scale.h"
#include "bench_stats.h"
#include "ferry/ferry.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/uapi/msm_drm.h"
#include "ferryd_spawn.h"

/* Submits a pipelining client keeps in flight: deep enough to keep ferryd busy, shallow enough
 * that 64 of them stay far from any per-client quota. */
#define SCALE_WINDOW 32
#define SCALE_MAX_LAT 200000
#define SCALE_READY_MS 30000

static int run_group(const char *uri, int mode, int n, bool probe, int duration_ms, struct bench_scale_result *res,
		     pid_t ferryd, double *cpu_s);

enum scale_mode { MODE_IDLE, MODE_PIPELINE, MODE_PROBE };

/* What one client reports through the result pipe (under PIPE_BUF: written atomically). */
#define scale_result bench_scale_result

struct scale_group {
	pid_t pids[BENCH_SCALE_MAX_CLIENTS + 1];
	int n;
	int go_w;     /* closed to start them all at once */
	int result_r; /* struct scale_result records */
	pid_t ferryd; /* when > 0: its CPU time over the run goes to cpu_s */
	double cpu_s;
};

/* User + system CPU seconds of a process, all its threads (/proc/PID/stat); -1 if unknown. */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
	unsigned long long ut, st;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void report(int fd, const struct scale_result *r)
{
	ssize_t n = write(fd, r, sizeof(*r));
	(void)n;
}

/* The child: connect, say ready, wait for go, work until its deadline, report. */
static void client_main(const char *uri, enum scale_mode mode, int index, int duration_ms, int ready_w,
			int go_r, int result_w)
{
	struct scale_result res = { .index = index };
	struct ferry_device *dev = NULL;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *ib = NULL;
	void *map = NULL;
	uint64_t ts;
	int r = ferry_device_open(uri, &dev);
	if (r == 0)
		r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx);
	if (r == 0)
		r = ferry_queue_create(ctx, 0, &q);
	if (r == 0 && mode != MODE_IDLE)
		r = ferry_bo_new(ctx, 4096, MSM_BO_WC, &ib);
	if (r == 0 && mode != MODE_IDLE)
		r = ferry_bo_map(ib, &map);
	if (r == 0) /* a round trip: the queue's creation (sent without one) is done on ferryd too */
		r = ferry_context_timestamp(ctx, &ts);
	if (r < 0)
		snprintf(res.why, sizeof(res.why), "setup: %s", dev ? ferry_device_last_error(dev) : strerror(-r));
	else if (map)
		((uint32_t *)map)[0] = pm4_type7_hdr(CP_NOP, 0);
	char byte = r == 0;
	if (write(ready_w, &byte, 1) != 1)
		r = -EIO;
	close(ready_w);
	char go;
	while (read(go_r, &go, 1) < 0 && errno == EINTR)
		;
	close(go_r);
	double *lat = mode == MODE_PROBE ? calloc(SCALE_MAX_LAT, sizeof(double)) : NULL;
	if (r == 0 && mode != MODE_IDLE) {
		struct ferry_cmd cmd = { .bo = ib, .offset = 0, .size = 4 };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
		uint32_t window[SCALE_WINDOW] = { 0 };
		unsigned long long n = 0;
		int nlat = 0;
		double t0 = bench_now_us(), end = t0 + duration_ms * 1000.0;
		while (r == 0 && bench_now_us() < end) {
			uint32_t seqno = 0;
			double s0 = bench_now_us();
			/* Sliding window: before the next submit, the one SCALE_WINDOW back is done. */
			if (mode == MODE_PIPELINE && n >= SCALE_WINDOW)
				r = ferry_fence_wait(q, window[n % SCALE_WINDOW], 30000000000ll);
			if (r == 0)
				r = ferry_submit(q, &s, &seqno);
			if (r == 0 && mode == MODE_PROBE)
				r = ferry_fence_wait(q, seqno, 30000000000ll);
			if (r == 0 && mode == MODE_PROBE && lat && nlat < SCALE_MAX_LAT)
				lat[nlat++] = bench_now_us() - s0;
			window[n % SCALE_WINDOW] = seqno;
			n += r == 0;
		}
		if (r == 0 && n)
			r = ferry_fence_wait(q, window[(n - 1) % SCALE_WINDOW], 30000000000ll);
		res.submits = n;
		res.secs = (bench_now_us() - t0) / 1e6;
		if (nlat) {
			res.p50_us = bench_percentile(lat, nlat, 50);
			res.p99_us = bench_percentile(lat, nlat, 99);
		}
		if (r < 0)
			snprintf(res.why, sizeof(res.why), "%s", ferry_device_last_error(dev));
	}
	free(lat);
	res.ok = r == 0;
	report(result_w, &res);
	close(result_w);
	ferry_bo_close(ib);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	_exit(r == 0 ? 0 : 1);
}

/* Forks n clients of mode (plus a probe when probe is set) and waits until each is connected
 * (or failed). 0 or a negative errno; on error nothing is left running. */
static int group_start(struct scale_group *g, const char *uri, enum scale_mode mode, int n, bool probe,
		       int duration_ms)
{
	int ready[2], go[2], result[2];
	*g = (struct scale_group){ .go_w = -1, .result_r = -1 };
	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(result, O_CLOEXEC) < 0) {
		int e = -errno;
		close(ready[0]);
		close(ready[1]);
		return e;
	}
	fflush(NULL);
	int total = n + (probe ? 1 : 0), err = 0;
	for (int i = 0; i < total; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			close(result[0]);
			client_main(uri, i < n ? mode : MODE_PROBE, i, duration_ms, ready[1], go[0], result[1]);
		}
		if (pid < 0) {
			err = -errno;
			break;
		}
		g->pids[g->n++] = pid;
	}
	close(ready[1]);
	close(go[0]);
	close(result[1]);
	g->go_w = go[1];
	g->result_r = result[0];
	/* Every child says ready (or failed) before go, so that connecting is not what is timed. */
	for (int got = 0; got < g->n && !err;) {
		struct pollfd p = { .fd = ready[0], .events = POLLIN };
		int pr = poll(&p, 1, SCALE_READY_MS);
		char buf[64];
		ssize_t k = pr > 0 ? read(ready[0], buf, sizeof(buf)) : -1;
		if (pr <= 0 || k <= 0) {
			err = pr == 0 ? -ETIMEDOUT : -EIO;
			break;
		}
		got += (int)k;
	}
	close(ready[0]);
	return err;
}

/* Starts them (closing go), collects a result from each into res[index] and reaps them. Returns
 * how many reported ok. */
static int group_finish(struct scale_group *g, struct scale_result *res)
{
	double cpu0 = g->ferryd > 0 ? proc_cpu_s(g->ferryd) : -1;
	close(g->go_w);
	int ok = 0;
	for (int got = 0; got < g->n; got++) {
		struct scale_result r;
		ssize_t k = read(g->result_r, &r, sizeof(r));
		if (k != (ssize_t)sizeof(r))
			break;
		if (r.index >= 0 && r.index < g->n) {
			res[r.index] = r;
			ok += r.ok;
		}
	}
	double cpu1 = g->ferryd > 0 ? proc_cpu_s(g->ferryd) : -1;
	g->cpu_s = cpu0 >= 0 && cpu1 >= 0 ? cpu1 - cpu0 : -1;
	close(g->result_r);
	for (int i = 0; i < g->n; i++) {
		int st;
		while (waitpid(g->pids[i], &st, 0) < 0 && errno == EINTR)
			;
	}
	return ok;
}

static void group_kill(struct scale_group *g)
{
	for (int i = 0; i < g->n; i++)
		kill(g->pids[i], SIGKILL);
	if (g->go_w >= 0)
		close(g->go_w);
	g->go_w = -1;
	for (int i = 0; i < g->n; i++)
		waitpid(g->pids[i], NULL, 0);
	if (g->result_r >= 0)
		close(g->result_r);
	g->n = 0;
}

long bench_scale_idle_kib(const char *uri, pid_t ferryd, int clients, long *base_kib, long *with_kib)
{
	struct scale_group g;
	struct scale_result *res = calloc((size_t)clients + 1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	/* One client first and gone again: what ferryd sets up once, on its first client, is not
	 * any one client's cost. */
	int r = group_start(&g, uri, MODE_IDLE, 1, false, 0);
	if (r < 0 || group_finish(&g, res) != 1) {
		group_kill(&g);
		free(res);
		return r < 0 ? r : -EIO;
	}
	/* ferryd frees a connection on its next pass and gives the memory back 1 s after the last
	 * (FERRYD_TRIM_DELAY_NS): measure once that is behind it, and its fd count has settled (a
	 * load before may still be leaving). */
	int fds = -1;
	for (int i = 0; i < 100; i++) {
		usleep(50 * 1000);
		int now = ferryd_proc_fd_count(ferryd);
		if (now == fds)
			break;
		fds = now;
	}
	usleep(1200 * 1000);
	*base_kib = ferryd_proc_mem_kib(ferryd);
	r = group_start(&g, uri, MODE_IDLE, clients, false, 0);
	if (r < 0) {
		group_kill(&g);
		free(res);
		return r;
	}
	*with_kib = ferryd_proc_mem_kib(ferryd);
	int ok = group_finish(&g, res);
	free(res);
	if (ok != clients || *base_kib < 0 || *with_kib < 0)
		return -EIO;
	return (*with_kib - *base_kib) * 1024 / clients;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* n clients of mode (and a probe) for duration_ms; res gets n (+1) results. */
int bench_scale_load(const char *uri, int clients, bool probe, int duration_ms, struct bench_scale_result *res)
{
	return run_group(uri, MODE_PIPELINE, clients, probe, duration_ms, res, 0, NULL);
}

static int run_group(const char *uri, int mode, int n, bool probe, int duration_ms,
		     struct scale_result *res, pid_t ferryd, double *cpu_s)
{
	struct scale_group g;
	int r = group_start(&g, uri, mode, n, probe, duration_ms);
	g.ferryd = ferryd;
	if (r < 0) {
		group_kill(&g);
		fprintf(stderr, "bench: cannot start %d clients: %s\n", n, strerror(-r));
		return r;
	}
	int ok = group_finish(&g, res);
	if (cpu_s)
		*cpu_s = g.cpu_s;
	if (ok != g.n) {
		for (int i = 0; i < g.n; i++)
			if (!res[i].ok)
				fprintf(stderr, "bench: client %d failed: %s\n", i, res[i].why[0] ? res[i].why : "no report");
		return -EIO;
	}
	return 0;
}

int bench_scale(const char *ferryd_path, const char *gpu, int clients, int duration_ms)
{
	struct ferryd_proc proc;
	if (ferryd_spawn(ferryd_path, gpu, NULL, true, 10000, &proc) < 0)
		return 1;
	int ret = 1;
	struct scale_result *res = calloc((size_t)clients + 1, sizeof(*res));
	double *rates = calloc((size_t)clients, sizeof(double));
	if (!res || !rates)
		goto out;

	long base = 0, with = 0;
	long idle_bytes = bench_scale_idle_kib(proc.uri, proc.pid, clients, &base, &with);
	if (idle_bytes < 0) {
		fprintf(stderr, "bench: idle clients: %s\n", strerror((int)-idle_bytes));
		goto out;
	}

	/* Alone: one pipelining client, then one submit+wait probe. */
	struct scale_result one = { 0 }, alone = { 0 };
	double cpu_one = -1, cpu_all = -1;
	if (run_group(proc.uri, MODE_PIPELINE, 1, false, duration_ms, &one, proc.pid, &cpu_one) < 0 ||
	    run_group(proc.uri, MODE_PROBE, 0, true, duration_ms, &alone, 0, NULL) < 0)
		goto out;
	double one_rate = one.submits / one.secs;

	if (run_group(proc.uri, MODE_PIPELINE, clients, true, duration_ms, res, proc.pid, &cpu_all) < 0)
		goto out;
	double agg = 0, longest = 0;
	for (int i = 0; i < clients; i++) {
		rates[i] = res[i].submits / res[i].secs;
		longest = res[i].secs > longest ? res[i].secs : longest;
	}
	unsigned long long total = 0;
	for (int i = 0; i < clients; i++)
		total += res[i].submits;
	agg = total / longest;
	qsort(rates, (size_t)clients, sizeof(double), cmp_double);
	double fair = agg / clients;
	const struct scale_result *probe = &res[clients];

	printf("ferry bench --clients %d: simulated %s, %d ms per phase, %d submits in flight per client "
	       "(one run on this machine; figures, not pass/fail)\n\n", clients, gpu, duration_ms, SCALE_WINDOW);
	printf("ferryd memory (smaps_rollup Rss, incl. shared fence pages):\n"
	       "  before %ld KiB, with %d idle clients %ld KiB: %.1f KiB per idle client (goal <= 256)\n\n",
	       base, clients, with, idle_bytes / 1024.0);
	printf("pipelined CP_NOP submits per second:\n");
	printf("  one client alone                 %10.0f\n", one_rate);
	printf("  %3d clients at once, aggregate   %10.0f   %.2fx one client (goal >= 0.8x)\n", clients, agg,
	       agg / one_rate);
	printf("  per client: min %.0f, median %.0f, max %.0f; fair share %.0f\n", rates[0],
	       rates[clients / 2], rates[clients - 1], fair);
	printf("  min / fair share                 %10.2f   (goal >= 0.5)\n", rates[0] / fair);
	/* On a machine with fewer cores than clients, ferryd's share of the CPU bounds the aggregate:
	 * its CPU time per submit tells its own cost apart from that. */
	if (cpu_one >= 0 && cpu_all >= 0)
		printf("  ferryd CPU per submit (us, all threads): one client %.1f, %d clients %.1f (%.2fx);\n"
		       "  ferryd busy: one client %.2f cores, %d clients %.2f cores\n",
		       cpu_one * 1e6 / (double)one.submits, clients, cpu_all * 1e6 / (double)total,
		       (cpu_all / (double)total) / (cpu_one / (double)one.submits), cpu_one / one.secs, clients,
		       cpu_all / longest);
	printf("\n");
	printf("submit+wait of one more client (us):  median      p99\n");
	printf("  alone                           %8.1f %8.1f\n", alone.p50_us, alone.p99_us);
	printf("  beside %3d pipelining clients   %8.1f %8.1f   p99 %.1fx alone\n", clients, probe->p50_us,
	       probe->p99_us, probe->p99_us / alone.p99_us);
	ret = 0;
out:
	free(res);
	free(rates);
	int st = ferryd_stop(&proc, 10000);
	if (ret == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		fprintf(stderr, "bench: ferryd did not exit cleanly\n");
		ret = 1;
	}
	return ret;
}
