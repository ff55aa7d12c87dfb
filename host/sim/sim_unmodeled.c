/* The kinds of work the simulated GPUs do not execute, their warnings, and the per-open sink that
 * hands retired jobs' counts to the owner's callback on an ioctl thread. */
#include "sim_unmodeled.h"

#include <string.h>

static const struct {
	const char *name, *message;
	bool strict;
} kinds[SIM_UNMODELED_KINDS] = {
	[SIM_UNMODELED_DRAW] = { "draw", "draw skipped: the simulated GPU does not execute shaders", true },
	[SIM_UNMODELED_DISPATCH] = { "dispatch",
				     "compute dispatch skipped: the simulated GPU does not execute shaders", true },
	[SIM_UNMODELED_ENGINE] = { "engine",
				   "copy/fill skipped: the simulated engine does not model this layout or format",
				   true },
	[SIM_UNMODELED_PACKET] = { "packet", "packet skipped: the simulator does not execute it", true },
	[SIM_UNMODELED_STATE] = { "state", "state packet not kept: the simulator keeps no shader or binning state",
				  false },
};

const char *sim_unmodeled_name(unsigned kind)
{
	return kind < SIM_UNMODELED_KINDS ? kinds[kind].name : NULL;
}

const char *sim_unmodeled_message(unsigned kind)
{
	return kind < SIM_UNMODELED_KINDS ? kinds[kind].message : NULL;
}

bool sim_unmodeled_fails_strict(unsigned kind)
{
	return kind < SIM_UNMODELED_KINDS && kinds[kind].strict;
}

void sim_unmodeled_add(struct sim_unmodeled_counts *c, unsigned kind, uint64_t n, const char *what)
{
	if (kind >= SIM_UNMODELED_KINDS || !n)
		return;
	c->n[kind] = n > UINT64_MAX - c->n[kind] ? UINT64_MAX : c->n[kind] + n;
	if (!c->what[kind])
		c->what[kind] = what;
}

bool sim_unmodeled_any(const struct sim_unmodeled_counts *c)
{
	for (unsigned k = 0; k < SIM_UNMODELED_KINDS; k++)
		if (c->n[k])
			return true;
	return false;
}

void sim_unmodeled_sink_add(struct sim_unmodeled_sink *s, const struct sim_unmodeled_counts *c)
{
	if (!s->fn || !sim_unmodeled_any(c))
		return;
	for (unsigned k = 0; k < SIM_UNMODELED_KINDS; k++)
		sim_unmodeled_add(&s->pending, k, c->n[k], c->what[k]);
	atomic_store_explicit(&s->has_pending, true, memory_order_release);
}

void sim_unmodeled_sink_set(struct sim_dev_lock *lock, struct sim_unmodeled_sink *s, sim_unmodeled_fn fn,
			    void *cookie)
{
	sim_dev_lock(lock);
	s->fn = fn;
	s->cookie = cookie;
	memset(&s->pending, 0, sizeof(s->pending));
	atomic_store_explicit(&s->has_pending, false, memory_order_relaxed);
	sim_dev_unlock(lock);
}

void sim_unmodeled_sink_flush(struct sim_dev_lock *lock, struct sim_unmodeled_sink *s)
{
	if (!atomic_load_explicit(&s->has_pending, memory_order_acquire))
		return;
	sim_dev_lock(lock);
	struct sim_unmodeled_counts c = s->pending;
	sim_unmodeled_fn fn = s->fn;
	void *cookie = s->cookie;
	memset(&s->pending, 0, sizeof(s->pending));
	atomic_store_explicit(&s->has_pending, false, memory_order_relaxed);
	sim_dev_unlock(lock);
	for (unsigned k = 0; k < SIM_UNMODELED_KINDS && fn; k++)
		if (c.n[k])
			fn(cookie, k, c.n[k], c.what[k] ? c.what[k] : "?");
}
