/* Minimal test macros for ferry's unit and integration tests (run by `meson test`).
 * A failed CHECK prints where and why, and the test exits non-zero at the end. */
#ifndef FERRY_TEST_H
#define FERRY_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                           \
	do {                                                                                  \
		test_checks++;                                                                \
		if (!(cond)) {                                                                \
			test_failures++;                                                      \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                             \
	} while (0)

#define CHECK_EQ(a, b)                                                                        \
	do {                                                                                  \
		long long _a = (long long)(a), _b = (long long)(b);                           \
		test_checks++;                                                                \
		if (_a != _b) {                                                               \
			test_failures++;                                                      \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld, 0x%llx vs 0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b, (unsigned long long)_a,    \
				(unsigned long long)_b);                                      \
		}                                                                             \
	} while (0)

/* Stops the test at once (for preconditions later checks depend on). */
#define REQUIRE(cond)                                                                         \
	do {                                                                                  \
		test_checks++;                                                                \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

#define RUN_TEST(fn)                                                                          \
	do {                                                                                  \
		int _before = test_failures;                                                  \
		fn();                                                                         \
		fprintf(stderr, "%s %s\n", test_failures == _before ? "ok  " : "FAIL", #fn);  \
	} while (0)

static inline int test_finish(void)
{
	fprintf(stderr, "%d checks, %d failed\n", test_checks, test_failures);
	return test_failures ? 1 : 0;
}

#endif
