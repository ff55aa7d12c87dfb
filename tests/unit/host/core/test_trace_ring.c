/* The trace ring and its Chrome-trace JSON (host/core/trace_ring.c) driven directly: wraparound and
 * the dropped count, JSON validity (a small strict checker), string escaping, the instants and
 * spans of each queue in order, overlapping submits split into lanes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "test.h"

/* ---- a strict JSON syntax checker (RFC 8259): returns the end of one value, or NULL ---- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *value(const char *p, int depth);

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (;;) {
		unsigned char c = (unsigned char)*p++;
		if (c == '"')
			return p;
		if (c < 0x20)
			return NULL; /* also the NUL at the end of the text */
		if (c >= 0x80)
			return NULL; /* the exporter writes ASCII only */
		if (c == '\\') {
			c = (unsigned char)*p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, p++)
					if (!strchr("0123456789abcdefABCDEF", *p) || !*p)
						return NULL;
			} else if (!c || !strchr("\"\\/bfnrt", c)) {
				return NULL;
			}
		}
	}
}

static const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static const char *value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = string(ws(p));
				if (!p || *(p = ws(p)) != ':')
					return NULL;
				p++;
			}
			p = value(p, depth + 1);
			if (!p)
				return NULL;
			p = ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return number(p);
}

static bool json_valid(const char *text)
{
	const char *end = value(text, 0);
	return end && *ws(end) == '\0';
}

/* ---- helpers ---- */

static void push(struct trace_ring *r, int64_t ts, uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind,
		 uint32_t seqno, int32_t status, const char *name)
{
	struct trace_event e = { .ts_ns = ts, .client = client, .ctx = ctx, .queue = queue, .seqno = seqno,
				 .status = status, .kind = kind, .name = name };
	trace_ring_push(r, &e);
}

static char *export(const struct trace_ring *r, trace_client_label_fn label)
{
	char *json = NULL;
	size_t len = 0;
	REQUIRE(trace_export_json(r, label, NULL, &json, &len) == 0);
	REQUIRE(json && strlen(json) == len);
	return json;
}

/* Occurrences of needle (memmem with the length left: strstr would rescan the whole text, which
 * ASan's interceptor makes quadratic on a 10 MB export). */
static int count(const char *hay, const char *needle)
{
	int n = 0;
	size_t total = strlen(hay), nlen = strlen(needle);
	for (const char *p = hay; (p = memmem(p, total - (size_t)(p - hay), needle, nlen)); p++)
		n++;
	return n;
}

static const char *evil_label(void *arg, uint32_t client)
{
	(void)arg;
	return client == 7 ? "peer \"q\" \\ \n\t\x01 \xc3\xa9" : NULL;
}

/* ---- tests ---- */

static void test_empty(void)
{
	struct trace_ring r = { 0 };
	char *json = export(&r, NULL);
	CHECK(json_valid(json));
	CHECK(strstr(json, "\"traceEvents\":[") != NULL);
	free(json);
	REQUIRE(trace_ring_init(&r) == 0);
	json = export(&r, NULL);
	CHECK(json_valid(json));
	free(json);
	trace_ring_fini(&r);
}

static void test_checker_rejects(void)
{
	/* The checker itself must fail bad input, or the other tests prove nothing. */
	CHECK(json_valid("{\"a\":[1,2.5,\"x\\u00e9\"]}"));
	CHECK(!json_valid("{\"a\":[1,2,]}"));
	CHECK(!json_valid("{\"a\":\"x\ny\"}"));
	CHECK(!json_valid("{\"a\":\"\\x\"}"));
	CHECK(!json_valid("{\"a\":1} x"));
	CHECK(!json_valid("{\"a\":1.}"));
}

static void test_wraparound(void)
{
	struct trace_ring r = { 0 };
	REQUIRE(trace_ring_init(&r) == 0);
	uint64_t total = TRACE_RING_EVENTS + 100;
	for (uint64_t i = 0; i < total; i++)
		push(&r, (int64_t)i * 1000, 1, 1, 0, TRACE_SUBMIT, (uint32_t)i + 1, 0, NULL);
	CHECK_EQ(trace_ring_count(&r), TRACE_RING_EVENTS);
	CHECK_EQ(trace_ring_dropped(&r), 100);
	char *json = export(&r, NULL);
	CHECK(json_valid(json));
	/* The oldest 100 were overwritten: seqno 100 is gone, 101 and the newest are there. */
	CHECK(strstr(json, "\"seqno\":100}") == NULL);
	CHECK(strstr(json, "\"seqno\":101}") != NULL);
	char want[64];
	snprintf(want, sizeof(want), "\"seqno\":%llu}", (unsigned long long)total);
	CHECK(strstr(json, want) != NULL);
	CHECK(strstr(json, "\"dropped\":100") != NULL);
	CHECK_EQ(count(json, "\"ph\":\"i\""), (int)TRACE_RING_EVENTS);
	free(json);
	trace_ring_clear(&r);
	CHECK_EQ(trace_ring_count(&r), 0);
	CHECK_EQ(trace_ring_dropped(&r), 0);
	trace_ring_fini(&r);
}

static void test_escape(void)
{
	char buf[64];
	size_t n = trace_json_escape(buf, sizeof(buf), "a\"b\\c\nd\x01\xff");
	CHECK(!strcmp(buf, "a\\\"b\\\\c\\nd\\u0001\\u00ff"));
	CHECK_EQ(n, strlen(buf));
	/* Truncation keeps the NUL and reports the length needed. */
	char small[4];
	CHECK_EQ(trace_json_escape(small, sizeof(small), "\"\"\""), 6);
	CHECK_EQ(strlen(small), 3);

	struct trace_ring r = { 0 };
	REQUIRE(trace_ring_init(&r) == 0);
	push(&r, 1000, 7, 1, 0, TRACE_SUBMIT, 1, 0, NULL);
	push(&r, 2000, 7, 1, TRACE_NO_QUEUE, TRACE_GPU_INSTANT, 0, 0, "odd \"name\"\n");
	char *json = export(&r, evil_label);
	CHECK(json_valid(json));
	CHECK(strstr(json, "client 7 peer \\\"q\\\" \\\\ \\n\\t\\u0001 \\u00c3\\u00a9") != NULL);
	CHECK(strstr(json, "odd \\\"name\\\"\\n") != NULL);
	free(json);
	trace_ring_fini(&r);
}

/* Finds the n-th occurrence (0-based) of needle after from; returns its offset or -1. */
static long find(const char *json, const char *needle)
{
	const char *p = strstr(json, needle);
	return p ? (long)(p - json) : -1;
}

static void test_spans_and_order(void)
{
	struct trace_ring r = { 0 };
	REQUIRE(trace_ring_init(&r) == 0);
	/* Queue 0: seqnos 1 and 2 in flight together; queue 1: seqno 1 held on queue 0's 2. */
	push(&r, 1000, 1, 5, 0, TRACE_SUBMIT, 1, 0, NULL);
	push(&r, 1100, 1, 5, 0, TRACE_VALIDATED, 1, 0, NULL);
	push(&r, 1200, 1, 5, 0, TRACE_KERNEL_SUBMIT, 1, 0, NULL);
	push(&r, 2000, 1, 5, 0, TRACE_SUBMIT, 2, 0, NULL);
	push(&r, 2200, 1, 5, 0, TRACE_KERNEL_SUBMIT, 2, 0, NULL);
	push(&r, 2500, 1, 5, 1, TRACE_SUBMIT, 1, 0, NULL);
	push(&r, 2600, 1, 5, 1, TRACE_HELD, 1, 0, NULL);
	push(&r, 5000, 1, 5, 0, TRACE_RETIRE, 1, 0, NULL);
	push(&r, 7000, 1, 5, 0, TRACE_FAULT, 2, 0, NULL);
	push(&r, 7100, 1, 5, 0, TRACE_RETIRE, 2, -5, NULL);
	push(&r, 7200, 1, 5, 1, TRACE_RELEASED, 1, -125, NULL);
	push(&r, 7300, 1, 5, 1, TRACE_RETIRE, 1, -125, NULL);
	/* Kernel events arrive late (pulled after the fact), out of time order in the ring. */
	push(&r, 1500, 1, 5, 0, TRACE_GPU_BEGIN, 1, 0, "cp");
	push(&r, 4500, 1, 5, 0, TRACE_GPU_END, 1, 0, "cp");
	push(&r, 4600, 1, 5, 0, TRACE_GPU_BEGIN, 2, 0, "cp");
	push(&r, 6900, 1, 5, 0, TRACE_GPU_END, 2, 0, "cp");
	push(&r, 3000, 1, 5, TRACE_NO_QUEUE, TRACE_GPU_BEGIN, 9, 0, "bin");  /* never ends: no span */
	char *json = export(&r, NULL);
	CHECK(json_valid(json));

	/* Rows named. */
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 0\"") != NULL);
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 1\"") != NULL);
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 0 in flight\"") != NULL);
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 0 in flight #2\"") != NULL); /* 1 and 2 overlap */
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 0 gpu cp\"") != NULL);
	CHECK(strstr(json, "\"name\":\"ctx 5 queue 0 gpu cp #2\"") == NULL);     /* GPU runs one at a time */
	CHECK(strstr(json, "\"name\":\"client 1\"") != NULL);

	/* Spans with µs timestamps relative to the oldest event (1000 ns). */
	CHECK(strstr(json, "{\"name\":\"run 1\",\"cat\":\"host\",\"ph\":\"X\"") != NULL);
	CHECK(strstr(json, "\"ts\":0.200,\"dur\":3.800,\"args\":{\"ctx\":5,\"queue\":0,\"seqno\":1,\"status\":0}") != NULL);
	CHECK(strstr(json, "\"ts\":1.200,\"dur\":4.900,\"args\":{\"ctx\":5,\"queue\":0,\"seqno\":2,\"status\":-5}") != NULL);
	CHECK(strstr(json, "{\"name\":\"cp 1\",\"cat\":\"gpu\",\"ph\":\"X\"") != NULL);
	CHECK(strstr(json, "\"ts\":0.500,\"dur\":3.000,") != NULL);
	CHECK(strstr(json, "{\"name\":\"cp 2\",") != NULL);
	CHECK(strstr(json, "\"name\":\"bin 9\"") == NULL);
	CHECK_EQ(count(json, "\"ph\":\"X\""), 4);
	/* No run span for queue 1's seqno (never reached the kernel). */
	CHECK(strstr(json, "\"queue\":1,\"seqno\":1,\"status\":-125}}") != NULL);

	/* Instants in time order: submit 1 < kernel submit 1 < submit 2 < retire 1 < fault 2. */
	long a = find(json, "{\"name\":\"submit\""), b = find(json, "{\"name\":\"kernel submit\"");
	long c = find(json, "{\"name\":\"retire\""), d = find(json, "{\"name\":\"fault\"");
	long held = find(json, "{\"name\":\"held\"");
	CHECK(a >= 0 && b > a && held > b && c > held && d > c);
	CHECK(strstr(json, "\"name\":\"fault\",\"cat\":\"host\",\"ph\":\"i\",\"s\":\"t\"") != NULL);
	free(json);
	trace_ring_fini(&r);
}

int main(void)
{
	RUN_TEST(test_checker_rejects);
	RUN_TEST(test_empty);
	RUN_TEST(test_wraparound);
	RUN_TEST(test_escape);
	RUN_TEST(test_spans_and_order);
	return test_finish();
}
