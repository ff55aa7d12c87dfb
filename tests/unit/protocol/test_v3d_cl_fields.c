/* v3d_cl_get()/v3d_cl_set() (ferry/hw/v3d_cl.h) read and write fields a word at a time; here they
 * are held to the bit-by-bit definition of a little-endian bit stream for every start and size
 * on random bytes, and never touch a byte outside the field's. */
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "test.h"

static uint64_t ref_get(const uint8_t *p, unsigned start, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)((p[(start + i) >> 3] >> ((start + i) & 7)) & 1u) << i;
	return v;
}

static void ref_set(uint8_t *p, unsigned start, unsigned size, uint64_t value)
{
	for (unsigned i = 0; i < size; i++) {
		unsigned bit = start + i;
		uint8_t mask = (uint8_t)(1u << (bit & 7));
		if ((value >> i) & 1u)
			p[bit >> 3] |= mask;
		else
			p[bit >> 3] &= (uint8_t)~mask;
	}
}

static uint64_t rnd64(void)
{
	uint64_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 16 ^ (uint64_t)(rand() & 0xffff);
	return v;
}

enum { PAD = 16, BYTES = 24 };

static void test_get_matches_bits(void)
{
	uint8_t buf[BYTES];
	unsigned bad = 0;
	for (int round = 0; round < 64; round++) {
		for (unsigned i = 0; i < BYTES; i++)
			buf[i] = (uint8_t)rand();
		for (unsigned start = 0; start < 64; start++)
			for (unsigned size = 0; size <= 64; size++)
				bad += v3d_cl_get(buf, start, size) != ref_get(buf, start, size);
	}
	CHECK_EQ(bad, 0u);
}

static void test_set_matches_bits(void)
{
	unsigned bad = 0;
	for (int round = 0; round < 16; round++) {
		for (unsigned start = 0; start < 64; start++)
			for (unsigned size = 0; size <= 64; size++) {
				/* the field's bytes sit between guard bytes that must stay as they were */
				uint8_t a[PAD + BYTES + PAD], b[PAD + BYTES + PAD];
				for (unsigned i = 0; i < sizeof(a); i++)
					a[i] = (uint8_t)rand();
				memcpy(b, a, sizeof(a));
				uint64_t value = rnd64(); /* bits above size must be dropped */
				v3d_cl_set(a + PAD, start, size, value);
				ref_set(b + PAD, start, size, value);
				bad += memcmp(a, b, sizeof(a)) != 0;
			}
	}
	CHECK_EQ(bad, 0u);
}

/* The field is exactly its bytes: a get or set on a field ending a heap buffer stays inside it
 * (ASan builds catch a stray byte). */
static void test_stays_inside(void)
{
	for (unsigned start = 0; start < 16; start++)
		for (unsigned size = 1; size <= 64; size++) {
			size_t n = (start + size + 7) / 8;
			uint8_t *p = malloc(n);
			CHECK(p != NULL);
			if (!p)
				return;
			memset(p, 0xa5, n);
			v3d_cl_set(p, start, size, ~0ull);
			CHECK_EQ(v3d_cl_get(p, start, size), size < 64 ? (1ull << size) - 1 : ~0ull);
			free(p);
		}
}

static void test_addresses(void)
{
	uint8_t p[8] = { 0 };
	p[0] = 0x13; /* GL Shader State: attribute count in bits 0..4 under the address */
	v3d_cl_set_address(p, 5, 27, 0x12345660u);
	CHECK_EQ(v3d_cl_get_address(p, 5, 27), 0x12345660u);
	CHECK_EQ(v3d_cl_get(p, 0, 5), 0x13u);
	v3d_cl_set_address(p, 32, 32, 0xdeadbeefu);
	CHECK_EQ(v3d_cl_get_address(p, 32, 32), 0xdeadbeefu);
	CHECK_EQ(v3d_cl_get_address(p, 5, 27), 0x12345660u);
}

int main(void)
{
	srand(16);
	RUN_TEST(test_get_matches_bits);
	RUN_TEST(test_set_matches_bits);
	RUN_TEST(test_stays_inside);
	RUN_TEST(test_addresses);
	return test_finish();
}
