/* The fence timeline (host/core/fence_timeline.c) on its own: in-order retiring, the one error
 * record, and the failing tail a fault begins, as the owner's callback, waits and the fence page
 * see them. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <ferry/fence_page.h>

#include "core/fence_timeline.h"
#include "test.h"

struct seen {
	uint32_t n;
	uint32_t seqno[16];
	int32_t status[16];
};

static void retired(void *arg, uint32_t seqno, uint32_t flags, int32_t status)
{
	(void)flags;
	struct seen *s = arg;
	if (s->n < 16) {
		s->seqno[s->n] = seqno;
		s->status[s->n] = status;
	}
	s->n++;
}

/* Pops the head as queue_retire does, with the status the family found for it. */
static void retire_head(struct fence_timeline *tl, int32_t status)
{
	struct pending_fence done = *timeline_head(tl);
	timeline_pop(tl);
	timeline_retire(tl, done.seqno, done.flags, status ? status : done.status);
}

static void push_range(struct fence_timeline *tl, uint32_t first, uint32_t last)
{
	for (uint32_t s = first;; s++) {
		REQUIRE(timeline_push(tl, s, 0, 0, true) == 0);
		if (s == last)
			break;
	}
}

/* One error: its record answers for it, the others read 0. */
static void test_one_error(void)
{
	struct seen seen = { 0 };
	struct fence_timeline tl;
	timeline_init(&tl, retired, &seen);
	push_range(&tl, 1, 4);
	retire_head(&tl, 0);
	retire_head(&tl, -EIO);
	retire_head(&tl, 0);
	CHECK_EQ(timeline_status(&tl, 1), 0);
	CHECK_EQ(timeline_status(&tl, 2), -EIO);
	CHECK_EQ(timeline_status(&tl, 3), 0);
	CHECK(!timeline_in_fail_tail(&tl, 3));
	CHECK_EQ(seen.n, 3u);
	CHECK_EQ(seen.status[1], -EIO);
	timeline_fini(&tl);
}

/* A fault at 3 whose queue went on to fault again (or whose fault nobody placed): everything after
 * 3 fails, including a later error of its own, and 3 keeps its own error. A set status on a
 * pending fence (the dump named a later one) still lands. */
static void test_fail_tail(void)
{
	struct seen seen = { 0 };
	struct fence_timeline tl;
	timeline_init(&tl, retired, &seen);
	push_range(&tl, 1, 7);
	CHECK(timeline_set_status(&tl, 3, -ETIMEDOUT));
	timeline_fail_after(&tl, 3, -EIO); /* a hang at 3; the lost context's later fences: -EIO */
	timeline_fail_after(&tl, 5, -EPIPE); /* a later fault: the earlier tail stands */
	CHECK(!timeline_in_fail_tail(&tl, 3));
	CHECK(timeline_in_fail_tail(&tl, 4));
	retire_head(&tl, 0);       /* 1 */
	retire_head(&tl, 0);       /* 2 */
	retire_head(&tl, 0);       /* 3: its set status */
	retire_head(&tl, 0);       /* 4: ran fine, fails with the tail */
	retire_head(&tl, -EIO);    /* 5: its own fault, told as the tail's */
	retire_head(&tl, -ECANCELED); /* 6 */
	CHECK_EQ(seen.n, 6u);
	static const int32_t want[] = { 0, 0, -ETIMEDOUT, -EIO, -EIO, -EIO };
	for (uint32_t i = 0; i < 6; i++) {
		CHECK_EQ(seen.seqno[i], i + 1);
		CHECK_EQ(seen.status[i], want[i]);
		CHECK_EQ(timeline_status(&tl, i + 1), want[i]);
	}
	/* The one record is still 3's: a page built from it says 3 failed. */
	CHECK_EQ(tl.error_seqno, 3u);
	/* An earlier fault moves the tail back. */
	timeline_fail_after(&tl, 1, -ECANCELED);
	CHECK_EQ(timeline_status(&tl, 2), -ECANCELED);
	timeline_fini(&tl);
}

/* The tail compares wrap-aware, like every seqno. */
static void test_fail_tail_wraps(void)
{
	struct seen seen = { 0 };
	struct fence_timeline tl;
	timeline_init(&tl, retired, &seen);
	push_range(&tl, 0xfffffffeu, 1);
	timeline_fail_after(&tl, 0xffffffffu, -EIO);
	CHECK(!timeline_in_fail_tail(&tl, 0xfffffffeu));
	CHECK(!timeline_in_fail_tail(&tl, 0xffffffffu));
	CHECK(timeline_in_fail_tail(&tl, 0));
	CHECK(timeline_in_fail_tail(&tl, 1));
	timeline_fini(&tl);
}

int main(void)
{
	RUN_TEST(test_one_error);
	RUN_TEST(test_fail_tail);
	RUN_TEST(test_fail_tail_wraps);
	return test_finish();
}
