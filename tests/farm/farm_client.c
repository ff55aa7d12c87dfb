/* One client of the farm test: connects through the balancer, then does jobs until its time is
 * up, and says on stdout how it ended, one line, so the test can time a board's death:
 *   READY <mode>                      connected (after the handshake and the device query)
 *   DONE <jobs>                       its time ran out, every job succeeded (exit 0)
 *   LOST <monotonic ns> <jobs> <errno> <context lost 0/1> <last error>   (exit 3)
 * A job is, in submit mode, a BO written by the GPU and read back (a real submit and a fence
 * wait); in query mode, a DeviceQuery round trip: the most a tcp client can do until contexts
 * work over tcp. auto takes submit mode when a context can be made, else query mode. A call
 * that hangs is killed by the alarm (SIGALRM: the test sees a signal, not an exit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h" /* ferry_request: a bare round trip, for query mode */
#include "itest.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int query_job(struct ferry_device *dev)
{
	struct ferry_msg msg = { .kind = FERRY_MSG_DEVICE_QUERY };
	msg.u.device_query.family = FERRY_FAMILY_NONE;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	if (p->kind != FERRY_MSG_DEVICE_INFO)
		r = p->kind == FERRY_MSG_ERROR ? p->msg.u.error.error : -EPROTO;
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[2], "submit") && strcmp(argv[2], "query") && strcmp(argv[2], "auto"))) {
		fprintf(stderr, "usage: farm_client URI submit|query|auto HOLD_MS\n");
		return 2;
	}
	const char *uri = argv[1];
	long hold_ms = strtol(argv[3], NULL, 10);
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm((unsigned)(hold_ms / 1000 + 15));

	struct itest_client c = { 0 };
	int r = ferry_device_open(uri, &c.dev);
	if (r < 0) {
		printf("OPENFAIL %d\n", r);
		return 2;
	}
	if ((r = ferry_device_info(c.dev, NULL, NULL)) < 0) {
		printf("OPENFAIL %d %s\n", r, ferry_device_last_error(c.dev));
		ferry_device_close(c.dev);
		return 2;
	}
	bool submit = strcmp(argv[2], "query") != 0;
	if (submit) {
		r = ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c.ctx);
		if (r == 0)
			r = ferry_queue_create(c.ctx, 0, &c.q);
		if (r < 0 && strcmp(argv[2], "auto") == 0) {
			if (c.ctx)
				ferry_context_destroy(c.ctx);
			c.ctx = NULL;
			submit = false;
		} else if (r < 0) {
			printf("OPENFAIL %d %s\n", r, ferry_device_last_error(c.dev));
			itest_client_close(&c);
			return 2;
		}
	}
	printf("READY %s\n", submit ? "submit" : "query");

	int64_t end = now_ns() + hold_ms * 1000000;
	unsigned jobs = 0;
	while (now_ns() < end) {
		r = submit ? (itest_client_works(&c, 0xf00d0000u + jobs) ? 0 : -EIO) : query_job(c.dev);
		if (r < 0 || ferry_device_poll_events(c.dev) < 0) {
			int64_t t = now_ns();
			int dead = ferry_device_poll_events(c.dev);
			printf("LOST %lld %u %d %d %s\n", (long long)t, jobs, dead < 0 ? dead : r,
			       c.ctx ? ferry_context_lost(c.ctx) : -1, ferry_device_last_error(c.dev));
			itest_client_close(&c);
			return 3;
		}
		jobs++;
		nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	}
	printf("DONE %u\n", jobs);
	itest_client_close(&c);
	return 0;
}
