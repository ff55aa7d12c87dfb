/* The render-node kdev's state, shared by its files (render_node.c, render_node_coredump.c,
 * render_node_trace.c). */
#ifndef FERRY_RENDER_NODE_PRIV_H
#define FERRY_RENDER_NODE_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kdev.h"
#include "render_node.h"

struct rn_fence {
	int fd;         /* the job's sync_file, in the epoll set */
	uint64_t queue; /* msm: the submitqueue; v3d: the submit ioctl (its kind's jobs run in order) */
};

struct rn_kdev {
	struct kdev base;
	int fd;    /* the render node */
	int epfd;  /* the poll fd: the pending jobs' sync_files */
	enum render_node_family family;
	char path[64];
	char sysdev[PATH_MAX]; /* the node's device in sysfs, "" if unknown */
	pthread_mutex_t lock;  /* fences: a submit may race the owner's poll_ack */
	char comm_tag[64];     /* MSM_PARAM_COMM of this open, naming it in dumps; "" if refused */
	long devcd_base;       /* devcd<N> up to this were pending at open: never ours */
	struct rn_fence *fences;
	size_t nr_fences, cap_fences;
	/* The blind timer (render_node.c): polls for jobs that got no sync_file; -1 if unavailable. */
	int blind_fd;
	int64_t blind_until_ns; /* 0: disarmed */
	uint64_t blind_jobs;    /* how many jobs went without a sync_file (tests, diagnostics) */
	/* tracefs (render_node_trace.c): 0 = not tried yet, 1 = reading, -1 = unavailable */
	int trace_state;
	int trace_fd;
	char trace_instance[PATH_MAX];
	char trace_partial[512];
	size_t trace_partial_len;
	uint64_t trace_serial;
};

void render_node_coredump_init(struct rn_kdev *k);
ssize_t render_node_coredump(struct kdev *kd, char *buf, size_t len);
/* Whether a devcoredump's header names this open (comm_tag) or, without one, this process. */
bool render_node_dump_is_ours(const char *text, const char *comm_tag);

void render_node_trace_init(struct rn_kdev *k);
void render_node_trace_fini(struct rn_kdev *k);
ssize_t render_node_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max);
/* One line of trace_pipe ("<task>-<pid> [cpu] <flags> <secs>.<usecs>: <event>: <fields>") of one
 * of the family's events into *ev; false for any other line. */
bool render_node_trace_parse(enum render_node_family family, const char *line, struct kdev_trace_event *ev);

#endif
