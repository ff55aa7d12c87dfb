/* The simulated msm kernel's trace points: per open, a small ring of CP start / end events per
 * submit (at the dispatcher's sop / eop timestamp writes), read through kdev_ops.trace_read. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "sim_msm_priv.h"

void msms_trace_record(struct msms_submit *s, uint32_t phase, uint64_t now_ns)
{
	struct msms_open *o = s->queue->open;
	if (!o)
		return;
	if (!o->trace) {
		/* Made on the first submit an open runs; a failed allocation only loses events. */
		o->trace = malloc(SIM_MSM_TRACE_RING * sizeof(*o->trace));
		if (!o->trace)
			return;
	}
	o->trace[o->trace_next % SIM_MSM_TRACE_RING] = (struct kdev_trace_event){
		.ts_ns = now_ns,
		.phase = phase, .queue = s->queue->id, .seqno = s->fence, .name = "cp",
	};
	o->trace_next++;
}

ssize_t msms_kdev_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max)
{
	struct msms_open *o = (struct msms_open *)kd;
	sim_dev_lock(&o->dev->lock);
	uint64_t pos = *cursor;
	/* A reader that fell behind resumes at the oldest event kept. */
	if (o->trace_next > SIM_MSM_TRACE_RING && pos < o->trace_next - SIM_MSM_TRACE_RING)
		pos = o->trace_next - SIM_MSM_TRACE_RING;
	size_t n = 0;
	for (; pos < o->trace_next && n < max; pos++)
		ev[n++] = o->trace[pos % SIM_MSM_TRACE_RING];
	*cursor = pos;
	sim_dev_unlock(&o->dev->lock);
	return (ssize_t)n;
}
