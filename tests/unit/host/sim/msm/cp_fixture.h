/* A CP test fixture: one open with a command BO, an IB2 BO and a data BO, a builder over the
 * command BO, and helpers to run it on a queue and read the resulting devcoredump. */
#ifndef FERRY_TEST_CP_FIXTURE_H
#define FERRY_TEST_CP_FIXTURE_H

#include <string.h>

#include "sim_helpers.h"

struct fixture {
	struct kdev *k;
	struct tbo cmd, ib2, data;
	struct pm4_builder b;
};

static inline void fx_init(struct sim_msm_device *dev, struct fixture *f)
{
	f->k = sim_msm_open(dev);
	REQUIRE(f->k);
	f->cmd = tbo_new(f->k, 64 * 1024);
	f->ib2 = tbo_new(f->k, 64 * 1024);
	f->data = tbo_new(f->k, 64 * 1024);
	pm4_builder_init(&f->b, f->cmd.cpu, 16 * 1024);
}

static inline void fx_fini(struct fixture *f)
{
	tbo_free(f->k, &f->cmd);
	tbo_free(f->k, &f->ib2);
	tbo_free(f->k, &f->data);
	f->k->ops->close(f->k);
}

/* Submits what the builder holds on queue and waits for it. */
static inline void fx_run_on(struct fixture *f, uint32_t queue)
{
	REQUIRE(pm4_builder_ok(&f->b));
	const struct tbo *extra[2] = { &f->ib2, &f->data };
	uint32_t fence;
	REQUIRE(submit_ib_bos(f->k, queue, &f->cmd, f->b.len, extra, 2, &fence) == 0);
	CHECK_EQ(wait_fence_ms(f->k, queue, fence, 20000), 0);
}

static inline void fx_run(struct fixture *f)
{
	fx_run_on(f, 0);
}

/* Starts a new stream in the command BO. */
static inline void fx_reset(struct fixture *f)
{
	pm4_builder_init(&f->b, f->cmd.cpu, 16 * 1024);
}

/* The pending devcoredump (REQUIREd to exist). */
static inline void fx_dump(struct fixture *f, char *text, size_t len)
{
	ssize_t n = f->k->ops->coredump(f->k, text, len);
	REQUIRE(n > 0);
}

#endif
