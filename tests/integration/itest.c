/* Shared helpers for the integration tests (see itest.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "itest.h"

#include "cmd_output.h"

static int skipped;

bool itest_render_node(void)
{
	const char *fk = getenv("FERRYD_FAKEKERNEL");
	return fk && fk[0];
}

const struct ferry_fault_info *itest_await_fault(struct ferry_device *dev, struct ferry_context *ctx)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ferry_device_poll_events(dev);
		const struct ferry_fault_info *fi = ferry_context_fault(ctx, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (fi || t.tv_sec - t0.tv_sec > 20)
			return fi;
		usleep(2000);
	}
}

bool itest_sim_only(const char *what, const char *why)
{
	if (!itest_render_node())
		return false;
	fprintf(stderr, "SKIP %s: %s (render-node mode)\n", what, why);
	skipped++;
	return true;
}

int itest_finish(int status, int nr_tests)
{
	return status == 0 && nr_tests > 0 && skipped >= nr_tests ? 77 : status;
}

void itest_start_ferryd(struct ferryd_proc *p)
{
	char path[PATH_MAX];
	if (ferryd_locate(NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		exit(1);
	}
	/* Generous: ASan builds start slowly on a loaded 2-core machine. */
	if (ferryd_spawn(path, "a630", NULL, true, 30000, p) < 0)
		exit(1);
}

bool itest_stop_ferryd(struct ferryd_proc *p)
{
	int st = ferryd_stop(p, 20000);
	return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int itest_bo_new(struct ferry_context *ctx, uint64_t size, struct itest_bo *b)
{
	memset(b, 0, sizeof(*b));
	int r = ferry_bo_new(ctx, size, MSM_BO_WC, &b->bo);
	void *p = NULL;
	if (r == 0)
		r = ferry_bo_map(b->bo, &p);
	if (r == 0)
		r = ferry_bo_iova(b->bo, &b->iova);
	b->cpu = p;
	b->size = size;
	return r;
}

int itest_client_open(const char *uri, struct itest_client *c)
{
	memset(c, 0, sizeof(*c));
	int r = ferry_device_open(uri, &c->dev);
	if (r < 0)
		return r;
	r = ferry_context_create(c->dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c->ctx);
	if (r == 0)
		r = ferry_queue_create(c->ctx, 0, &c->q);
	if (r < 0) {
		fprintf(stderr, "itest_client_open: %s\n", ferry_device_last_error(c->dev));
		itest_client_close(c);
	}
	return r;
}

void itest_client_close(struct itest_client *c)
{
	if (c->q)
		ferry_queue_close(c->q);
	if (c->ctx)
		ferry_context_destroy(c->ctx);
	if (c->dev)
		ferry_device_close(c->dev);
	memset(c, 0, sizeof(*c));
}

int itest_submit(struct itest_client *c, struct ferry_bo *ib_bo, uint32_t offset, uint32_t bytes,
		 struct ferry_bo *const *write_bos, uint32_t nr_write_bos, uint32_t *seqno)
{
	struct ferry_submit_bo bos[8];
	if (nr_write_bos > 8)
		return -E2BIG;
	for (uint32_t i = 0; i < nr_write_bos; i++)
		bos[i] = (struct ferry_submit_bo){ write_bos[i], MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = ib_bo, .offset = offset, .size = bytes };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = bos, .nr_bos = nr_write_bos };
	return ferry_submit(c->q, &s, seqno);
}

bool itest_client_works(struct itest_client *c, uint32_t pattern)
{
	struct itest_bo ib, data;
	bool ok = false;
	if (itest_bo_new(c->ctx, 4096, &ib) < 0)
		return false;
	if (itest_bo_new(c->ctx, 4096, &data) < 0) {
		ferry_bo_close(ib.bo);
		return false;
	}
	data.cpu[7] = 0;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_mem_write(&b, data.iova + 7 * 4, &pattern, 1);
	uint32_t seqno;
	if (pm4_builder_ok(&b) &&
	    itest_submit(c, ib.bo, 0, pm4_builder_bytes(&b), &data.bo, 1, &seqno) == 0 &&
	    ferry_fence_wait(c->q, seqno, ITEST_WAIT_NS) == 0)
		ok = data.cpu[7] == pattern;
	ferry_bo_close(data.bo);
	ferry_bo_close(ib.bo);
	return ok;
}

int itest_proc_fd_count(pid_t pid)
{
	return ferryd_proc_fd_count(pid);
}

long itest_proc_rss_kib(pid_t pid)
{
	return ferryd_proc_rss_kib(pid);
}

bool itest_proc_alive(pid_t pid)
{
	int st;
	return waitpid(pid, &st, WNOHANG) == 0;
}

/* The library has no test counters: a setup failure ends the test program, as REQUIRE would. */
#define ITEST_MUST(cond)                                                                  \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

char *itest_ferry_status(const struct ferryd_proc *p, const char *args, int *exit_status)
{
	const char *ferry = getenv("FERRY");
	ITEST_MUST(ferry && ferry[0]);
	char *out;
	int st = test_cmd_output(&out, "'%s' status --control '%s' %s", ferry, p->control, args);
	ITEST_MUST(out);
	if (exit_status)
		*exit_status = st;
	return out;
}

int itest_log_count(const struct ferryd_proc *p, const char *needle)
{
	FILE *f = fopen(p->log, "r");
	if (!f)
		return 0;
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}
