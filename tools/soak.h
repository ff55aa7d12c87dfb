/* `ferry soak`: the parts shared by the driver (soak.c), the client kinds (soak_clients.c,
 * soak_v3d.c) and the ferryd probes (soak_probe.c). */
#ifndef FERRY_TOOLS_SOAK_H
#define FERRY_TOOLS_SOAK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum soak_kind {
	SOAK_GOOD,   /* submit+wait loops of validated PM4 that write a pattern; bytes checked */
	SOAK_FAULT,  /* stray writes: refused in a validated context, a GPU fault in passthrough */
	SOAK_HANG,   /* CP_WAIT_REG_MEM that never matches, caught by the hangcheck */
	SOAK_KILL,   /* forks victims that are SIGKILLed with BOs and submits in flight */
	SOAK_SLOW,   /* creates BOs and never reads a reply */
	SOAK_FLOOD,  /* connections opened and dropped at once, malformed frames */
	SOAK_V3D,    /* V3D: checked CL and TFU copies (only on a V3D ferryd) */
	SOAK_HEAVY,  /* submits that take ferryd long to validate: do the others starve? */
	SOAK_GREEDY, /* contexts up to the quota and thousands of BOs, then all let go */
	SOAK_KIND_COUNT
};

const char *soak_kind_name(enum soak_kind k);

/* Latency histogram in µs: exact below 256 µs, then 32 buckets per power of two (3%). */
#define SOAK_HIST_BUCKETS (256 + 34 * 32)
struct soak_hist {
	uint64_t count, max_us, sum_us;
	uint32_t bucket[SOAK_HIST_BUCKETS];
};
void soak_hist_add(struct soak_hist *h, uint64_t us);
void soak_hist_merge(struct soak_hist *into, const struct soak_hist *from);
/* The upper bound of the bucket holding the q-quantile (0 < q <= 1), capped at the max. */
uint64_t soak_hist_quantile(const struct soak_hist *h, double q);

/* A slow reader asks for this many BOs and never reads a reply. ferryd may hold one fd per BO
 * (its memory); what it holds beyond the BOs of all clients, for the whole time the reader
 * waits, is pinned by the replies queued for it. The slack covers the other clients' contexts. */
#define SOAK_SLOW_BOS 1024
#define SOAK_SLOW_FD_SLACK 128

/* One worker's record, in memory shared with the driver (the workers are child processes). */
struct soak_slot {
	enum soak_kind kind;
	unsigned index;
	pid_t pid;
	uint64_t requests;   /* requests sent (submits, BO creates, frames, connections, kills) */
	uint64_t rounds;     /* iterations that behaved as expected */
	uint64_t unexpected; /* errors this kind must not see */
	uint64_t wrong_bytes;
	uint64_t skipped;    /* rounds not possible on this ferryd (e.g. no passthrough) */
	uint64_t pinned_fds; /* slow readers: ferryd fds held beyond the BOs' own (worst round) */
	char first_error[240];
	struct soak_hist lat; /* each submit+wait (heavy: each batch) */
};

/* What every worker needs to know. */
struct soak_env {
	const char *uri;
	const char *socket_path; /* for raw connections (unix only) */
	const char *control;     /* ferryd's control socket */
	pid_t ferryd_pid;        /* 0 when not local */
	long long deadline_ms;   /* CLOCK_MONOTONIC, shared by every process */
	unsigned hangcheck_ms;
	unsigned seed;
	const char *gpu;
	volatile int *stop;      /* shared: set by the driver to end early */
};

long long soak_now_ms(void);
uint64_t soak_now_us(void);
bool soak_should_stop(const struct soak_env *env);
/* Records the first unexpected error of a worker (printf-style) and counts it. */
void soak_fail(struct soak_slot *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Worker bodies: loop until the deadline, then return (the caller _exits). */
void soak_run_good(const struct soak_env *env, struct soak_slot *s);
void soak_run_fault(const struct soak_env *env, struct soak_slot *s);
void soak_run_hang(const struct soak_env *env, struct soak_slot *s);
void soak_run_kill(const struct soak_env *env, struct soak_slot *s);
void soak_run_slow(const struct soak_env *env, struct soak_slot *s);
void soak_run_flood(const struct soak_env *env, struct soak_slot *s);
void soak_run_v3d(const struct soak_env *env, struct soak_slot *s);
void soak_run_heavy(const struct soak_env *env, struct soak_slot *s);
void soak_run_greedy(const struct soak_env *env, struct soak_slot *s);
/* A V3D client for soak_run_kill to kill: says so on ready (after connecting for phase 0, after
 * its submits otherwise) and waits. Never returns. */
void soak_v3d_victim(const struct soak_env *env, int ready, int phase) __attribute__((noreturn));

/* ferryd as seen from outside: /proc and the control socket. */
struct soak_probe {
	int fds;           /* -1 when unknown */
	long rss_kib;      /* -1 when unknown */
	long long clients, contexts, queues, bos, bo_bytes, shadow_bytes; /* -1 when not reported */
	long long submits, faults, bad_messages, validation_rejects;
};
/* Fills p from /proc (pid > 0) and the control socket's "status". 0, or -errno if the control
 * socket did not answer. *pid_out (if not NULL) gets the pid ferryd reports. */
int soak_probe(const char *control, pid_t pid, struct soak_probe *p, pid_t *pid_out);
/* Lines of ferryd's log that look like a sanitizer report or a crash; prints up to max of them. */
int soak_log_scan(const char *log_path, int max_print);

#endif
