/* The submit ring's two ends (protocol/submit_ring.c): records in order across the wrap, a full
 * ring, the doorbell handshake, a producer and consumer on two threads, and a consumer that
 * refuses every way a guest can break the ring without reading past it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/submit_ring.h"
#include "test.h"

#define RING_LEN (FERRY_RING_HDR_SIZE + FERRY_RING_MIN_DATA)

static _Alignas(64) uint8_t mem[RING_LEN];

static void setup(struct ferry_ring_producer *p, struct ferry_ring_consumer *c)
{
	memset(mem, 0xa5, sizeof(mem));
	CHECK_EQ(ferry_ring_consumer_init(c, mem, sizeof(mem), true), 0);
	CHECK_EQ(ferry_ring_producer_init(p, mem, sizeof(mem), false), 0);
}

static int put(struct ferry_ring_producer *p, uint32_t len, uint8_t fill, uint32_t seq)
{
	int err;
	uint8_t *d = ferry_ring_reserve(p, len, seq, &err);
	if (!d)
		return err;
	memset(d, fill, len);
	ferry_ring_publish(p);
	return 0;
}

static void test_sizes(void)
{
	struct ferry_ring_consumer c;
	CHECK_EQ(ferry_ring_consumer_init(&c, mem, FERRY_RING_HDR_SIZE + 1000, true), -EINVAL);
	CHECK_EQ(ferry_ring_consumer_init(&c, mem, FERRY_RING_HDR_SIZE, true), -EINVAL);
	CHECK_EQ(ferry_ring_consumer_init(&c, mem, 100, true), -EINVAL);
	CHECK(!ferry_ring_size_ok(FERRY_RING_MAX_DATA * 2));
	CHECK(ferry_ring_size_ok(FERRY_RING_DEFAULT_DATA));
	/* A producer checks the header the host wrote. */
	struct ferry_ring_producer p;
	CHECK_EQ(ferry_ring_consumer_init(&c, mem, sizeof(mem), true), 0);
	((struct ferry_ring_header *)mem)->magic = 0;
	CHECK_EQ(ferry_ring_producer_init(&p, mem, sizeof(mem), false), -EINVAL);
}

static void test_order_and_wrap(void)
{
	struct ferry_ring_producer p;
	struct ferry_ring_consumer c;
	setup(&p, &c);
	uint8_t buf[FERRY_RING_MIN_DATA];
	uint32_t seq = 0;
	/* Odd sizes so records land everywhere, including right before the end. */
	for (uint32_t i = 0; i < 5000; i++) {
		uint32_t len = (i * 37) % 3000;
		CHECK_EQ(put(&p, len, (uint8_t)i, i / 3), 0);
		uint32_t got, s;
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &got, &s), 1);
		CHECK_EQ(got, len);
		CHECK_EQ(s, i / 3);
		for (uint32_t k = 0; k < len; k++)
			if (buf[k] != (uint8_t)i) {
				CHECK_EQ(buf[k], (uint8_t)i);
				break;
			}
		/* Not consumed yet: the same record again. */
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &got, &seq), 1);
		CHECK_EQ(got, len);
		ferry_ring_consume(&c);
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &got, &s), 0);
	}
	CHECK_EQ(c.records, 5000u);
}

static void test_full_and_too_big(void)
{
	struct ferry_ring_producer p;
	struct ferry_ring_consumer c;
	setup(&p, &c);
	uint32_t max = ferry_ring_max_payload(FERRY_RING_MIN_DATA);
	CHECK_EQ(put(&p, max + 1, 0, 0), -EMSGSIZE);
	int n = 0;
	while (put(&p, 1000, 1, 0) == 0)
		n++;
	CHECK_EQ(n, (int)(FERRY_RING_MIN_DATA / 1024));
	CHECK_EQ(put(&p, 1000, 1, 0), -EAGAIN);
	/* The guest asks to be told about room; the host's consume says so once half the ring
	 * is free, what the guest waits for, not at every record. */
	atomic_store(&p.hdr->producer_waiting, 1);
	uint8_t buf[2048];
	uint32_t len, s;
	int taken = 0;
	for (;;) {
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 1);
		taken++;
		bool wake = ferry_ring_consume(&c);
		CHECK_EQ(wake, ferry_ring_room_enough(ferry_ring_used(&p), p.size));
		if (wake)
			break;
	}
	CHECK_EQ(taken, n / 2);
	CHECK_EQ(put(&p, 1000, 1, 0), 0);
	/* Not waiting: no wakeup, however much room. */
	atomic_store(&p.hdr->producer_waiting, 0);
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 1);
	CHECK(!ferry_ring_consume(&c));
	/* A record too large for the consumer's buffer is an error, not a truncation. */
	CHECK_EQ(ferry_ring_next(&c, buf, 10, &len, &s), -EMSGSIZE);
}

static void test_doorbell(void)
{
	struct ferry_ring_producer p;
	struct ferry_ring_consumer c;
	setup(&p, &c);
	CHECK(ferry_ring_arm(&c));
	/* The first publish after arming rings, the next does not (the flag was taken). */
	int err;
	CHECK(ferry_ring_reserve(&p, 8, 0, &err) != NULL);
	CHECK(ferry_ring_publish(&p));
	CHECK(ferry_ring_reserve(&p, 8, 0, &err) != NULL);
	CHECK(!ferry_ring_publish(&p));
	/* Records waiting: the host may not sleep. */
	CHECK(!ferry_ring_arm(&c));
	CHECK(ferry_ring_reserve(&p, 8, 0, &err) != NULL);
	CHECK(!ferry_ring_publish(&p));
	uint8_t buf[64];
	uint32_t len, s;
	while (ferry_ring_next(&c, buf, sizeof(buf), &len, &s) == 1)
		ferry_ring_consume(&c);
	CHECK(ferry_ring_arm(&c));
	ferry_ring_disarm(&c);
	CHECK(ferry_ring_reserve(&p, 8, 0, &err) != NULL);
	CHECK(!ferry_ring_publish(&p));
}

/* Each way a guest can write the indices or a record header wrongly is refused, and the
 * consumer's own head does not move. */
/* The host tells the guest its head once an eighth of the ring was taken, or when it stops
 * (ferry_ring_tell_head): never later, so a guest waiting for room is still woken at half. */
static void test_deferred_head(void)
{
	struct ferry_ring_producer p;
	struct ferry_ring_consumer c;
	setup(&p, &c);
	int n = 0;
	while (put(&p, 1000, 1, 0) == 0)
		n++;
	atomic_store(&p.hdr->producer_waiting, 1);
	uint8_t buf[2048];
	uint32_t len, s;
	int woken_at = -1;
	for (int i = 0; i < n; i++) {
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 1);
		bool wake = ferry_ring_consume_deferred(&c);
		uint32_t told = atomic_load(&c.hdr->head);
		CHECK(c.head - told < c.size / 8u);
		CHECK(told == c.published);
		CHECK(!wake || ferry_ring_room_enough(ferry_ring_used(&p), p.size));
		if (wake && woken_at < 0)
			woken_at = i + 1;
	}
	/* At half, or at most an eighth of the ring later. */
	CHECK(woken_at >= n / 2 && woken_at <= n / 2 + n / 8);
	CHECK(ferry_ring_tell_head(&c) || atomic_load(&c.hdr->head) == c.head);
	CHECK_EQ(atomic_load(&c.hdr->head), c.head);
	CHECK_EQ(ferry_ring_used(&p), 0u);
	CHECK(!ferry_ring_tell_head(&c)); /* nothing new to tell */
	/* Records the host had seen the tail for come without another look at it; new ones after a
	 * look. */
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 0);
	CHECK_EQ(put(&p, 100, 2, 0), 0);
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 1);
	CHECK_EQ(len, 100u);
}

static void test_hostile(void)
{
	struct ferry_ring_producer p;
	struct ferry_ring_consumer c;
	uint8_t buf[FERRY_RING_MIN_DATA];
	uint32_t len, s;
	struct ferry_ring_record *r = (struct ferry_ring_record *)(mem + FERRY_RING_HDR_SIZE);

	setup(&p, &c);
	atomic_store(&c.hdr->tail, FERRY_RING_MIN_DATA + 16); /* past the end */
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);
	atomic_store(&c.hdr->tail, 8); /* misaligned */
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);
	atomic_store(&c.hdr->tail, 0xfffffff0u); /* "behind" the head */
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);

	const struct ferry_ring_record bad[] = {
		{ 0, FERRY_RING_REC_FRAME, 0, 0 },       /* empty record: would never advance */
		{ 24, FERRY_RING_REC_FRAME, 0, 8 },      /* misaligned size */
		{ 64, FERRY_RING_REC_FRAME, 0, 100 },    /* payload past the record */
		{ 64, FERRY_RING_REC_FRAME, 0, 4 },      /* slack: size not len's */
		{ 4096, FERRY_RING_REC_FRAME, 0, 4000 }, /* past the published tail */
		{ 32, 77, 0, 16 },                       /* unknown kind */
		{ 32, FERRY_RING_REC_PAD, 0, 0 },        /* padding that stops short of the end */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup(&p, &c);
		*r = bad[i];
		atomic_store(&c.hdr->tail, 64);
		CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);
		CHECK_EQ(c.head, 0u);
	}
	/* Padding at offset 0 (a whole ring of it): no producer writes one, and a guest that kept
	 * moving its tail past such records would keep the host skipping them forever. */
	setup(&p, &c);
	*r = (struct ferry_ring_record){ FERRY_RING_MIN_DATA, FERRY_RING_REC_PAD, 0, 0 };
	atomic_store(&c.hdr->tail, FERRY_RING_MIN_DATA);
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);
	CHECK_EQ(c.head, 0u);
	/* A record that claims to run past the end of the data area. */
	setup(&p, &c);
	atomic_store(&c.hdr->head, FERRY_RING_MIN_DATA - 32);
	c.head = c.next = c.published = c.tail_seen = FERRY_RING_MIN_DATA - 32;
	struct ferry_ring_record *last =
		(struct ferry_ring_record *)(mem + FERRY_RING_HDR_SIZE + FERRY_RING_MIN_DATA - 32);
	*last = (struct ferry_ring_record){ 64, FERRY_RING_REC_FRAME, 0, 48 };
	atomic_store(&c.hdr->tail, FERRY_RING_MIN_DATA + 32);
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), -EPROTO);
	/* The guest moving the host's head does not move the host. */
	setup(&p, &c);
	CHECK_EQ(put(&p, 40, 3, 0), 0);
	atomic_store(&c.hdr->head, 12345);
	CHECK_EQ(ferry_ring_next(&c, buf, sizeof(buf), &len, &s), 1);
	CHECK_EQ(len, 40u);
}

struct stress {
	struct ferry_ring_producer p;
	unsigned n;
};

static void *producer(void *arg)
{
	struct stress *st = arg;
	for (unsigned i = 0; i < st->n;) {
		uint32_t len = 8 + (i * 13) % 500;
		int err;
		uint8_t *d = ferry_ring_reserve(&st->p, len, i, &err);
		if (!d)
			continue; /* full: spin until the consumer makes room */
		for (uint32_t k = 0; k < len; k++)
			d[k] = (uint8_t)(i + k);
		ferry_ring_publish(&st->p);
		i++;
	}
	return NULL;
}

/* Two threads: every record arrives whole, in order (what the memory ordering promises). */
static void test_two_threads(void)
{
	static struct stress st;
	struct ferry_ring_consumer c;
	setup(&st.p, &c);
	st.n = 200000;
	pthread_t t;
	CHECK_EQ(pthread_create(&t, NULL, producer, &st), 0);
	uint8_t buf[1024];
	unsigned bad = 0;
	for (unsigned i = 0; i < st.n;) {
		uint32_t len, s;
		int r = ferry_ring_next(&c, buf, sizeof(buf), &len, &s);
		if (r == 0)
			continue;
		if (r < 0 || s != i || len != 8 + (i * 13) % 500) {
			bad++;
			break;
		}
		for (uint32_t k = 0; k < len; k++)
			if (buf[k] != (uint8_t)(i + k))
				bad++;
		ferry_ring_consume(&c);
		i++;
	}
	pthread_join(t, NULL);
	CHECK_EQ(bad, 0u);
}

int main(void)
{
	RUN_TEST(test_sizes);
	RUN_TEST(test_order_and_wrap);
	RUN_TEST(test_full_and_too_big);
	RUN_TEST(test_doorbell);
	RUN_TEST(test_deferred_head);
	RUN_TEST(test_hostile);
	RUN_TEST(test_two_threads);
	return test_finish();
}
