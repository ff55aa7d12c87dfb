/* The GPU address-space allocator: alignment, exhaustion, reservations, free/reuse, lookup and
 * the edges of the 64-bit space. */
#include <errno.h>

#include "sim/iova_alloc.h"
#include "test.h"

#define VA 0x100000000ull

static void test_alignment(void)
{
	struct iova_alloc a;
	REQUIRE(iova_alloc_init(&a, VA, 1ull << 32) == 0);
	uint64_t x, y, z;
	CHECK_EQ(iova_alloc_alloc(&a, 100, 1, NULL, &x), 0);
	CHECK_EQ(x, VA);
	CHECK_EQ(iova_alloc_alloc(&a, 4096, 4096, NULL, &y), 0);
	CHECK_EQ(y, VA + 4096);
	CHECK_EQ(iova_alloc_alloc(&a, 1, 1ull << 20, NULL, &z), 0);
	CHECK_EQ(z, VA + (1ull << 20));
	CHECK_EQ(iova_alloc_alloc(&a, 1, 3, NULL, &z), -EINVAL);
	CHECK_EQ(iova_alloc_alloc(&a, 1, 0, NULL, &z), -EINVAL);
	CHECK_EQ(iova_alloc_alloc(&a, 0, 1, NULL, &z), -EINVAL);
	/* Fills the gap between x and y when it fits. */
	CHECK_EQ(iova_alloc_alloc(&a, 16, 16, NULL, &z), 0);
	CHECK_EQ(z, VA + 112);
	iova_alloc_fini(&a);
}

static void test_exhaustion(void)
{
	struct iova_alloc a;
	REQUIRE(iova_alloc_init(&a, VA, 4 * 4096) == 0);
	uint64_t x;
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(iova_alloc_alloc(&a, 4096, 4096, NULL, &x), 0);
		CHECK_EQ(x, VA + 4096ull * i);
	}
	CHECK_EQ(iova_alloc_alloc(&a, 1, 1, NULL, &x), -ENOSPC);
	CHECK_EQ(iova_alloc_free(&a, VA + 4096), 0);
	CHECK_EQ(iova_alloc_alloc(&a, 8192, 4096, NULL, &x), -ENOSPC);
	CHECK_EQ(iova_alloc_alloc(&a, 4096, 4096, NULL, &x), 0);
	CHECK_EQ(x, VA + 4096); /* reused */
	CHECK_EQ(iova_alloc_alloc(&a, UINT64_MAX, 1, NULL, &x), -ENOSPC);
	iova_alloc_fini(&a);
}

static void test_reserve(void)
{
	struct iova_alloc a;
	REQUIRE(iova_alloc_init(&a, VA, 1ull << 32) == 0);
	int owner1, owner2;
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0x10000, 0x2000, &owner1), 0);
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0x10000, 0x1000, NULL), -EBUSY);
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0xf000, 0x1001, NULL), -EBUSY);  /* touches the start */
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0x11fff, 0x10, NULL), -EBUSY);   /* touches the end */
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0xf000, 0x4000, NULL), -EBUSY);  /* covers it */
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0xf000, 0x1000, &owner2), 0);    /* adjacent below */
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0x12000, 0x1000, NULL), 0);      /* adjacent above */
	CHECK_EQ(iova_alloc_reserve(&a, VA - 0x1000, 0x1000, NULL), -ERANGE);
	CHECK_EQ(iova_alloc_reserve(&a, VA - 0x1000, 0x2000, NULL), -ERANGE);
	CHECK_EQ(iova_alloc_reserve(&a, VA + (1ull << 32) - 0x1000, 0x1000, NULL), 0); /* last page */
	CHECK_EQ(iova_alloc_reserve(&a, VA + (1ull << 32), 0x1000, NULL), -ERANGE);
	CHECK_EQ(iova_alloc_reserve(&a, VA + (1ull << 32) - 0x1000, 0x2000, NULL), -ERANGE);
	CHECK_EQ(iova_alloc_reserve(&a, UINT64_MAX - 10, 100, NULL), -EINVAL); /* wraps */
	CHECK_EQ(iova_alloc_reserve(&a, VA, 0, NULL), -EINVAL);
	const struct iova_range *r = iova_alloc_find(&a, VA + 0x11fff);
	REQUIRE(r != NULL);
	CHECK(r->owner == &owner1);
	CHECK_EQ(r->start, VA + 0x10000);
	r = iova_alloc_find(&a, VA + 0xffff);
	REQUIRE(r != NULL);
	CHECK(r->owner == &owner2);
	CHECK(iova_alloc_find(&a, VA + 0x13000) == NULL);
	CHECK(iova_alloc_find(&a, 0) == NULL);
	CHECK(iova_alloc_find(&a, UINT64_MAX) == NULL);
	/* The allocator skips reserved ranges. */
	uint64_t x;
	CHECK_EQ(iova_alloc_alloc(&a, 0x10000, 0x1000, NULL, &x), 0); /* the low gap is 0xf000 */
	CHECK_EQ(x, VA + 0x13000);
	CHECK_EQ(iova_alloc_alloc(&a, 0xf000, 0x1000, NULL, &x), 0);
	CHECK_EQ(x, VA);
	CHECK_EQ(iova_alloc_alloc(&a, 0x1000, 0x1000, NULL, &x), 0);
	CHECK_EQ(x, VA + 0x23000);
	CHECK_EQ(iova_alloc_free(&a, VA + 0x10001), -ENOENT);
	CHECK_EQ(iova_alloc_free(&a, VA + 0x10000), 0);
	CHECK_EQ(iova_alloc_free(&a, VA + 0x10000), -ENOENT);
	CHECK(iova_alloc_find(&a, VA + 0x10000) == NULL);
	CHECK_EQ(iova_alloc_reserve(&a, VA + 0x10000, 0x2000, NULL), 0);
	iova_alloc_fini(&a);
}

static void test_top_of_space(void)
{
	struct iova_alloc a;
	/* A space that ends at 2^64 exactly: inclusive arithmetic must not wrap. */
	CHECK_EQ(iova_alloc_init(&a, 0, 0), -EINVAL);
	CHECK_EQ(iova_alloc_init(&a, UINT64_MAX, 2), -EINVAL);
	REQUIRE(iova_alloc_init(&a, UINT64_MAX - 0xffff, 0x10000) == 0);
	uint64_t x;
	CHECK_EQ(iova_alloc_alloc(&a, 0x8000, 0x8000, NULL, &x), 0);
	CHECK_EQ(x, UINT64_MAX - 0xffff);
	CHECK_EQ(iova_alloc_alloc(&a, 0x8000, 0x8000, NULL, &x), 0);
	CHECK_EQ(x, UINT64_MAX - 0x7fff);
	CHECK_EQ(iova_alloc_alloc(&a, 1, 1, NULL, &x), -ENOSPC);
	CHECK(iova_alloc_find(&a, UINT64_MAX) != NULL);
	CHECK_EQ(iova_alloc_free(&a, UINT64_MAX - 0x7fff), 0);
	CHECK_EQ(iova_alloc_reserve(&a, UINT64_MAX, 1, NULL), 0);
	CHECK_EQ(iova_alloc_alloc(&a, 0x8000, 1, NULL, &x), -ENOSPC);
	CHECK_EQ(iova_alloc_alloc(&a, 0x7fff, 1, NULL, &x), 0);
	CHECK_EQ(x, UINT64_MAX - 0x7fff);
	iova_alloc_fini(&a);
	/* Zero-based space: address 0 is allocatable. */
	REQUIRE(iova_alloc_init(&a, 0, 0x3000) == 0);
	CHECK_EQ(iova_alloc_reserve(&a, 0, 0x1000, NULL), 0);
	CHECK_EQ(iova_alloc_alloc(&a, 0x1000, 0x1000, NULL, &x), 0);
	CHECK_EQ(x, 0x1000u);
	iova_alloc_fini(&a);
}

static void test_many_ranges(void)
{
	struct iova_alloc a;
	REQUIRE(iova_alloc_init(&a, VA, 1ull << 32) == 0);
	uint64_t x;
	for (int i = 0; i < 1000; i++)
		REQUIRE(iova_alloc_alloc(&a, 4096, 4096, NULL, &x) == 0);
	for (int i = 0; i < 1000; i += 2)
		CHECK_EQ(iova_alloc_free(&a, VA + 4096ull * i), 0);
	for (int i = 0; i < 1000; i++) {
		const struct iova_range *r = iova_alloc_find(&a, VA + 4096ull * i + 5);
		CHECK((r != NULL) == (i % 2 == 1));
	}
	CHECK_EQ(a.count, 500u);
	iova_alloc_fini(&a);
}

int main(void)
{
	RUN_TEST(test_alignment);
	RUN_TEST(test_exhaustion);
	RUN_TEST(test_reserve);
	RUN_TEST(test_top_of_space);
	RUN_TEST(test_many_ranges);
	return test_finish();
}
