/* kdev_ops.trace_read for the simulated v3d: the device's seed-004 trace points of one open,
 * turned into GPU job begin / end events (bin, render, tfu, csd, cache_clean) and instants. */
#include <errno.h>

#include "sim_v3d_priv.h"

static const char *const queue_names[] = { "bin", "render", "tfu", "csd", "cache_clean" };

static const char *queue_name(uint32_t queue)
{
	return queue < sizeof(queue_names) / sizeof(queue_names[0]) ? queue_names[queue] : "v3d";
}

static void convert(const struct sim_v3d_trace_event *in, struct kdev_trace_event *out)
{
	uint32_t phase = KDEV_TRACE_INSTANT;
	switch (in->kind) {
	case SIM_V3D_TRACE_SUBMIT_CL:
	case SIM_V3D_TRACE_SUBMIT_TFU:
	case SIM_V3D_TRACE_SUBMIT_CSD:
	case SIM_V3D_TRACE_CACHE_CLEAN_BEGIN:
		phase = KDEV_TRACE_BEGIN;
		break;
	case SIM_V3D_TRACE_BCL_IRQ:
	case SIM_V3D_TRACE_RCL_IRQ:
	case SIM_V3D_TRACE_TFU_IRQ:
	case SIM_V3D_TRACE_CSD_IRQ:
	case SIM_V3D_TRACE_CACHE_CLEAN_END:
		phase = KDEV_TRACE_END;
		break;
	default:
		break;
	}
	*out = (struct kdev_trace_event){
		.ts_ns = in->ts_ns, .phase = phase, .queue = in->queue, .seqno = in->seqno,
		.name = phase == KDEV_TRACE_INSTANT ? sim_v3d_trace_kind_name(in->kind) : queue_name(in->queue),
	};
}

ssize_t v3ds_kdev_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max)
{
	struct v3ds_open *o = (struct v3ds_open *)kd;
	/* The device ring holds every open's events: read it in chunks, keep this open's. */
	struct sim_v3d_trace_event chunk[64];
	size_t out = 0;
	while (out < max) {
		uint64_t pos = *cursor;
		size_t n = sim_v3d_trace_read(o->dev, &pos, chunk, sizeof(chunk) / sizeof(chunk[0]));
		if (n == 0)
			break;
		size_t i = 0;
		for (; i < n && out < max; i++) {
			if (chunk[i].client == o->client)
				convert(&chunk[i], &ev[out++]);
		}
		/* Resume after the last event looked at (all of the chunk unless ev filled up). */
		*cursor = chunk[i - 1].serial + 1;
	}
	return (ssize_t)out;
}
