/* Helpers for the decoder tests: decode into a string, substring checks that show the text on
 * failure, an .rd file builder and an ascii85 encoder (written independently of the decoder's). */
#ifndef FERRY_TEST_DECODE_UTIL_H
#define FERRY_TEST_DECODE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "pm4_decode.h"
#include "test.h"

#define CHECK_HAS(text, needle)                                                                         \
	do {                                                                                            \
		const char *_t = (text);                                                                \
		test_checks++;                                                                          \
		if (!_t || !strstr(_t, (needle))) {                                                    \
			test_failures++;                                                                \
			fprintf(stderr, "%s:%d: missing \"%s\" in:\n%s\n", __FILE__, __LINE__, (needle), \
				_t ? _t : "(null)");                                                    \
		}                                                                                       \
	} while (0)

#define CHECK_LACKS(text, needle)                                                                     \
	do {                                                                                          \
		const char *_t = (text);                                                              \
		test_checks++;                                                                        \
		if (_t && strstr(_t, (needle))) {                                                    \
			test_failures++;                                                              \
			fprintf(stderr, "%s:%d: unexpected \"%s\" in:\n%s\n", __FILE__, __LINE__, (needle), _t); \
		}                                                                                     \
	} while (0)

/* Decoded text of a stream (caller frees). */
static inline char *decode_str(const uint32_t *dw, size_t n, uint64_t base, const struct pm4_decode_options *o,
			       struct pm4_decode_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(pm4_decode(f, dw, n, base, o, st), 0);
	fclose(f);
	return buf;
}

/* A growable byte buffer for building files. */
struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static inline void bytes_put(struct bytes *b, const void *data, size_t n)
{
	REQUIRE(FERRY_ARRAY_RESERVE(b->p, b->cap, b->len + n, 256) == 0);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void bytes_u32(struct bytes *b, uint32_t v)
{
	unsigned char le[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
				(unsigned char)(v >> 24) };
	bytes_put(b, le, 4);
}

/* One .rd section: type, byte size, payload. */
static inline void rd_put(struct bytes *b, uint32_t type, const void *payload, uint32_t size)
{
	bytes_u32(b, type);
	bytes_u32(b, size);
	if (size)
		bytes_put(b, payload, size);
}

static inline void rd_put_dwords(struct bytes *b, uint32_t type, const uint32_t *w, uint32_t n)
{
	bytes_u32(b, type);
	bytes_u32(b, n * 4);
	for (uint32_t i = 0; i < n; i++)
		bytes_u32(b, w[i]);
}

/* ascii85 as msm's devcoredump writes it: 'z' for a zero word, else five digits base 85 from '!',
 * most significant first. */
static inline void ascii85_put(struct bytes *b, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i] == 0) {
			bytes_put(b, "z", 1);
			continue;
		}
		char d[5];
		uint32_t v = w[i];
		for (int k = 4; k >= 0; k--) {
			d[k] = (char)('!' + v % 85);
			v /= 85;
		}
		bytes_put(b, d, 5);
	}
}

static inline void bytes_str(struct bytes *b, const char *s) { bytes_put(b, s, strlen(s)); }

#endif
