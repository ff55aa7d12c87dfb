/* The render-node kdev's trace points: the drivers' tracefs events (gpu/msm's msm_gpu_submit_flush
 * and _retired, v3d's submit and irq events) read from a tracefs instance of this open, with the
 * monotonic trace clock. Needs write access to tracefs (root, as a rule); without it trace_read
 * is -ENOTSUP. The events are the device's, not this open's: the kernel does not say which file
 * submitted a job, so every open of a device sees every job of it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render_node_priv.h"
#include "ferry/uapi/v3d_drm.h"

static const char *const tracefs_roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

struct tp {
	const char *event;  /* the kernel's event name */
	const char *name;   /* kdev_trace_event.name */
	uint32_t phase;
	int queue;          /* -1: from the event's ring= field (msm) */
};

static const struct tp msm_tps[] = {
	{ "msm_gpu_submit_flush", "cp", KDEV_TRACE_BEGIN, -1 },
	{ "msm_gpu_submit_retired", "cp", KDEV_TRACE_END, -1 },
};
static const struct tp v3d_tps[] = {
	{ "v3d_submit_cl", NULL, KDEV_TRACE_BEGIN, -2 }, /* "bin" or "render" from the text */
	{ "v3d_bcl_irq", "bin", KDEV_TRACE_END, V3D_BIN },
	{ "v3d_rcl_irq", "render", KDEV_TRACE_END, V3D_RENDER },
	{ "v3d_submit_tfu", "tfu", KDEV_TRACE_BEGIN, V3D_TFU },
	{ "v3d_tfu_irq", "tfu", KDEV_TRACE_END, V3D_TFU },
	{ "v3d_submit_csd", "csd", KDEV_TRACE_BEGIN, V3D_CSD },
	{ "v3d_csd_irq", "csd", KDEV_TRACE_END, V3D_CSD },
	{ "v3d_cache_clean_begin", "cache_clean", KDEV_TRACE_BEGIN, V3D_CACHE_CLEAN },
	{ "v3d_cache_clean_end", "cache_clean", KDEV_TRACE_END, V3D_CACHE_CLEAN },
	{ "v3d_reset_begin", "v3d_reset_begin", KDEV_TRACE_INSTANT, 0 },
	{ "v3d_reset_end", "v3d_reset_end", KDEV_TRACE_INSTANT, 0 },
};

void render_node_trace_init(struct rn_kdev *k)
{
	k->trace_state = 0;
	k->trace_fd = -1;
}

void render_node_trace_fini(struct rn_kdev *k)
{
	if (k->trace_fd >= 0)
		close(k->trace_fd);
	k->trace_fd = -1;
	if (k->trace_instance[0])
		rmdir(k->trace_instance);
	k->trace_instance[0] = '\0';
}

static int write_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX + 128];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -e;
}

static int trace_setup(struct rn_kdev *k)
{
	static unsigned instances;
	for (size_t i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		char inst[PATH_MAX];
		snprintf(inst, sizeof(inst), "%s/instances/ferry-%d-%u", tracefs_roots[i], (int)getpid(),
			 __atomic_fetch_add(&instances, 1, __ATOMIC_RELAXED));
		if (mkdir(inst, 0700) < 0)
			continue;
		snprintf(k->trace_instance, sizeof(k->trace_instance), "%s", inst);
		int ok = write_file(inst, "trace_clock", "mono") == 0;
		if (k->family == RENDER_NODE_MSM)
			ok = ok && write_file(inst, "events/drm_msm_gpu/msm_gpu_submit_flush/enable", "1") == 0 &&
			     write_file(inst, "events/drm_msm_gpu/msm_gpu_submit_retired/enable", "1") == 0;
		else
			ok = ok && write_file(inst, "events/v3d/enable", "1") == 0;
		char pipe[PATH_MAX + 16];
		snprintf(pipe, sizeof(pipe), "%s/trace_pipe", inst);
		if (ok)
			k->trace_fd = open(pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (k->trace_fd >= 0)
			return 0;
		render_node_trace_fini(k);
	}
	return -ENOTSUP;
}

static uint32_t field_u32(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? (uint32_t)strtoul(p + strlen(key), NULL, 0) : 0;
}

bool render_node_trace_parse(enum render_node_family family, const char *line, struct kdev_trace_event *ev)
{
	const char *br = strchr(line, ']');
	if (!br)
		return false;
	const char *colon = strstr(br, ": ");
	if (!colon)
		return false;
	/* The timestamp is the last word before ": ". */
	const char *ts = colon;
	while (ts > br && ts[-1] != ' ')
		ts--;
	char *end;
	double secs = strtod(ts, &end);
	if (end != colon)
		return false;
	const char *event = colon + 2;
	const char *fields = strstr(event, ": ");
	size_t elen = fields ? (size_t)(fields - event) : strcspn(event, "\n");
	const struct tp *tps = family == RENDER_NODE_MSM ? msm_tps : v3d_tps;
	size_t n = family == RENDER_NODE_MSM ? sizeof(msm_tps) / sizeof(msm_tps[0])
						: sizeof(v3d_tps) / sizeof(v3d_tps[0]);
	fields = fields ? fields + 2 : "";
	for (size_t i = 0; i < n; i++) {
		if (strlen(tps[i].event) != elen || strncmp(tps[i].event, event, elen) != 0)
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->ts_ns = (uint64_t)(secs * 1e9);
		ev->phase = tps[i].phase;
		ev->seqno = field_u32(fields, "seqno=");
		if (tps[i].queue == -1) {
			/* msm's events print "ring=R:S": the ring (a priority level, not a
			 * submitqueue) and the ring's own seqno, so they cannot be tied to a
			 * guest queue's fence (docs/real-board.md). */
			ev->queue = field_u32(fields, "ring=");
			const char *rs = strstr(fields, "ring=");
			rs = rs ? strchr(rs, ':') : NULL;
			ev->seqno = rs ? (uint32_t)strtoul(rs + 1, NULL, 0) : 0;
		} else if (tps[i].queue == -2) {
			/* v3d_submit_cl prints "dev=N, RCL|BCL, seqno=S, ...". */
			bool render = strstr(fields, "RCL") != NULL;
			ev->queue = render ? V3D_RENDER : V3D_BIN;
		} else {
			ev->queue = (uint32_t)tps[i].queue;
		}
		ev->name = tps[i].name ? tps[i].name : ev->queue == V3D_RENDER ? "render" : "bin";
		return true;
	}
	return false;
}

ssize_t render_node_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max)
{
	struct rn_kdev *k = (struct rn_kdev *)kd;
	if (k->trace_state == 0)
		k->trace_state = trace_setup(k) == 0 ? 1 : -1;
	if (k->trace_state < 0)
		return -ENOTSUP;
	size_t got = 0;
	while (got < max) {
		/* Whole lines only: a partial one waits in trace_partial for the rest. */
		char *nl = memchr(k->trace_partial, '\n', k->trace_partial_len);
		if (nl) {
			*nl = '\0';
			if (render_node_trace_parse(k->family, k->trace_partial, &ev[got]))
				got++;
			size_t used = (size_t)(nl + 1 - k->trace_partial);
			memmove(k->trace_partial, nl + 1, k->trace_partial_len - used);
			k->trace_partial_len -= used;
			continue;
		}
		if (k->trace_partial_len == sizeof(k->trace_partial))
			k->trace_partial_len = 0; /* a line too long for any event of ours */
		ssize_t r = read(k->trace_fd, k->trace_partial + k->trace_partial_len,
				 sizeof(k->trace_partial) - k->trace_partial_len);
		if (r <= 0)
			break;
		k->trace_partial_len += (size_t)r;
	}
	k->trace_serial += got;
	*cursor = k->trace_serial;
	return (ssize_t)got;
}
