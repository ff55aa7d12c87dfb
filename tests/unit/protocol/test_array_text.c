/* The one array-growth helper (ferry/array.h) and the growable text (ferry/text.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/text.h"
#include "test.h"

static void test_grow_doubles_and_zeroes(void)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, 1, 16), 0);
	CHECK_EQ(cap, 16);
	for (size_t i = 0; i < cap; i++)
		CHECK_EQ(v[i], 0);
	v[15] = 7;
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, 17, 16), 0);
	CHECK_EQ(cap, 32);
	CHECK_EQ(v[15], 7);
	CHECK_EQ(v[16], 0);
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, 20, 16), 0); /* room already: nothing moves */
	CHECK_EQ(cap, 32);
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, 100, 16), 0);
	CHECK_EQ(cap, 128);
	free(v);
}

static void test_grow_u32(void)
{
	uint32_t *v = NULL;
	uint32_t cap = 0;
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, 3, 0), 0); /* no minimum: 1, 2, 4 */
	CHECK_EQ(cap, 4);
	/* A uint32_t capacity never passes UINT32_MAX. */
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, (size_t)UINT32_MAX + 1, 16), -ENOMEM);
	CHECK_EQ(cap, 4);
	CHECK(v != NULL);
	free(v);
}

static void test_grow_overflow(void)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	CHECK_EQ(FERRY_ARRAY_RESERVE(v, cap, SIZE_MAX / 4, 16), -ENOMEM);
	CHECK(v == NULL);
	CHECK_EQ(cap, 0);
}

static void test_text(void)
{
	struct ferry_text t = { 0 };
	ferry_text_put(&t, "ok\n");
	CHECK_EQ(t.len, 3);
	CHECK(strcmp(t.buf, "ok\n") == 0);
	char big[5000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ferry_text_put(&t, "%s|%d", big, 42);
	CHECK(!t.failed);
	CHECK_EQ(t.len, 3 + sizeof(big) - 1 + 3);
	CHECK_EQ(strlen(t.buf), t.len);
	CHECK(strcmp(t.buf + t.len - 3, "|42") == 0);
	ferry_text_free(&t);
	CHECK(t.buf == NULL && t.len == 0 && !t.failed);
}

int main(void)
{
	RUN_TEST(test_grow_doubles_and_zeroes);
	RUN_TEST(test_grow_u32);
	RUN_TEST(test_grow_overflow);
	RUN_TEST(test_text);
	return test_finish();
}
