/* Shared helpers for the integration tests: each test starts its own ferryd (path from
 * $FERRYD, set by meson) on a private socket, and talks to it through libferry. */
#ifndef FERRY_ITEST_H
#define FERRY_ITEST_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "pm4_builder.h"

#define ITEST_WAIT_NS (20ll * 1000 * 1000 * 1000)

/* Suite integration-rendernode: ferryd serves the fake kernel's /dev/dri/renderD128 through its
 * render-node kdev (FERRYD_FAKEKERNEL set, tools/ferryd_spawn.c). */
bool itest_render_node(void);
/* For a check that needs what only ferryd's built-in simulator gives (a real kernel has none):
 * in render-node mode prints "SKIP <what>: <why>" and returns true, so the caller skips it. */
bool itest_sim_only(const char *what, const char *why);
/* main's exit status: 77 (skipped) when every test of the program was skipped that way. */
int itest_finish(int status, int nr_tests);
/* The context's first fault report, reading events until it comes (at most 20 s), or NULL. */
const struct ferry_fault_info *itest_await_fault(struct ferry_device *dev, struct ferry_context *ctx);


/* Starts ferryd (REQUIREs success). */
void itest_start_ferryd(struct ferryd_proc *p);
/* SIGTERM; returns true if it exited 0. */
bool itest_stop_ferryd(struct ferryd_proc *p);

/* A mapped BO with its iova. */
struct itest_bo {
	struct ferry_bo *bo;
	uint32_t *cpu;
	uint64_t iova;
	uint64_t size;
};
int itest_bo_new(struct ferry_context *ctx, uint64_t size, struct itest_bo *b);

/* A connected client with one msm context and one queue. */
struct itest_client {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *q;
};
int itest_client_open(const char *uri, struct itest_client *c);
void itest_client_close(struct itest_client *c);

/* Submits ib[0..bytes) of ib_bo with extra BOs (WRITE). Returns the seqno via *seqno. */
int itest_submit(struct itest_client *c, struct ferry_bo *ib_bo, uint32_t offset, uint32_t bytes,
		 struct ferry_bo *const *write_bos, uint32_t nr_write_bos, uint32_t *seqno);

/* Checks a client is fully served: creates a BO, writes a pattern with the GPU and reads it
 * back. Returns true when everything came back right. */
bool itest_client_works(struct itest_client *c, uint32_t pattern);

/* ferryd's open fd count and VmRSS (KiB), from /proc. */
int itest_proc_fd_count(pid_t pid);
long itest_proc_rss_kib(pid_t pid);
bool itest_proc_alive(pid_t pid);

/* Runs `$FERRY status --control <p's control socket> ARGS` and returns what it printed (stdout
 * and stderr, malloc'd; REQUIREs success in running it); *exit_status (may be NULL) gets its
 * exit code, -1 if it did not exit. */
char *itest_ferry_status(const struct ferryd_proc *p, const char *args, int *exit_status);
/* Lines of ferryd's log that contain needle (0 when the log cannot be read). */
int itest_log_count(const struct ferryd_proc *p, const char *needle);

#endif
