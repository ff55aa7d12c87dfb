/* `ferry soak`: measuring ferryd from outside (/proc, its control socket, its log) and the small
 * shared pieces: clocks, the latency histogram, failure records. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control_client.h"
#include "ferryd_spawn.h"
#include "soak.h"

const char *soak_kind_name(enum soak_kind k)
{
	static const char *const names[SOAK_KIND_COUNT] = { "good", "fault", "hang", "kill",
							    "slow", "flood", "v3d", "heavy", "greedy" };
	return k < SOAK_KIND_COUNT ? names[k] : "?";
}

long long soak_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t soak_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

bool soak_should_stop(const struct soak_env *env)
{
	return *env->stop || soak_now_ms() >= env->deadline_ms;
}

void soak_fail(struct soak_slot *s, const char *fmt, ...)
{
	s->unexpected++;
	if (s->first_error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->first_error, sizeof(s->first_error), fmt, ap);
	va_end(ap);
}

static unsigned hist_index(uint64_t us)
{
	if (us < 256)
		return (unsigned)us;
	unsigned e = 63u - (unsigned)__builtin_clzll(us); /* >= 8 */
	unsigned sub = (unsigned)(us >> (e - 5)) & 31u;
	unsigned idx = 256u + (e - 8u) * 32u + sub;
	return idx < SOAK_HIST_BUCKETS ? idx : SOAK_HIST_BUCKETS - 1;
}

static uint64_t hist_upper(unsigned idx)
{
	if (idx < 256)
		return idx;
	unsigned e = 8u + (idx - 256u) / 32u, sub = (idx - 256u) % 32u;
	return ((uint64_t)(32u + sub + 1u) << (e - 5u)) - 1u;
}

void soak_hist_add(struct soak_hist *h, uint64_t us)
{
	h->count++;
	h->sum_us += us;
	if (us > h->max_us)
		h->max_us = us;
	h->bucket[hist_index(us)]++;
}

void soak_hist_merge(struct soak_hist *into, const struct soak_hist *from)
{
	into->count += from->count;
	into->sum_us += from->sum_us;
	if (from->max_us > into->max_us)
		into->max_us = from->max_us;
	for (unsigned i = 0; i < SOAK_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

uint64_t soak_hist_quantile(const struct soak_hist *h, double q)
{
	if (!h->count)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < SOAK_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t up = hist_upper(i);
			return up < h->max_us ? up : h->max_us;
		}
	}
	return h->max_us;
}

/* The value of "key: N" in a status answer, -1 when absent. */
static long long status_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoll(p + klen + 1, NULL, 10);
	return -1;
}

int soak_probe(const char *control, pid_t pid, struct soak_probe *p, pid_t *pid_out)
{
	p->fds = pid > 0 ? ferryd_proc_fd_count(pid) : -1;
	p->rss_kib = pid > 0 ? ferryd_proc_rss_kib(pid) : -1;
	char *answer = NULL;
	int r = control_request(control, "status", 10000, &answer);
	if (r == 0 && strncmp(answer, "ok\n", 3) != 0)
		r = -EPROTO;
	const char *t = r == 0 ? answer : "";
	p->clients = status_value(t, "clients");
	p->contexts = status_value(t, "contexts");
	p->queues = status_value(t, "queues");
	p->bos = status_value(t, "bos");
	p->bo_bytes = status_value(t, "bo-bytes");
	p->shadow_bytes = status_value(t, "shadow-bytes");
	p->submits = status_value(t, "submits");
	p->faults = status_value(t, "faults");
	p->bad_messages = status_value(t, "bad-messages");
	p->validation_rejects = status_value(t, "validation-rejects");
	if (pid_out)
		*pid_out = (pid_t)status_value(t, "pid");
	free(answer);
	return r;
}

int soak_log_scan(const char *log_path, int max_print)
{
	static const char *const needles[] = { "AddressSanitizer", "LeakSanitizer", "runtime error:",
					       "UndefinedBehaviorSanitizer", "ThreadSanitizer",
					       "Segmentation fault", "Assertion `" };
	FILE *f = log_path && log_path[0] ? fopen(log_path, "r") : NULL;
	if (!f)
		return 0;
	char line[1024];
	int hits = 0;
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
			if (!strstr(line, needles[i]))
				continue;
			if (hits++ < max_print)
				fprintf(stderr, "  ferryd log: %s", line);
			break;
		}
	}
	fclose(f);
	return hits;
}
