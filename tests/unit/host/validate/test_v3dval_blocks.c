/* The shader-state block's address checks in one pass (check_block_words in v3d_cl_records.c):
 * every field of every record of a block, for each attribute count, is refused outside the
 * context with the field's name, whatever the validator's own tables say (the expected fields come
 * from protocol/hw/v3d_cl.c); the records past the count are not read; the byte a field must reach
 * is bounded by its BO's end; a field the BO of the one before it does not hold is looked up; the
 * gaps between blocks in their shadow are zeroes; and a block named again is found as the block
 * table grows. */
#include "test.h"
#include "v3dval_harness.h"

#define CL 0x00100000u
#define BCL CL
#define RCL (CL + 0x4000u)
#define DATA 0x00200000u    /* 64 KiB: the blocks, code, uniforms, vertices */
#define DATA2 0x00210000u   /* 4 KiB, adjacent to DATA */
#define UNMAPPED 0x00500000u
#define REC (DATA + 0x100)
#define CODE (DATA + 0x1000)
#define UNIF (DATA + 0x2000)
#define VBO (DATA + 0x3000)

static void setup(struct harness *h, int ver)
{
	h_init(h, ver);
	h_bo(h, CL, 0x10000);
	h_bo(h, DATA, 0x10000);
	h_bo(h, DATA2, 0x1000);
}

static struct h_job shader_job(struct harness *h, uint8_t op, uint32_t rec, uint32_t attrs)
{
	struct v3d_clb b, r;
	uint8_t raw[5] = { op };
	v3d_cl_set_address(raw + 1, V3D_CL_GL_SHADER_ADDRESS, rec);
	v3d_cl_set(raw + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, attrs);
	h_clb(h, &b, BCL, 0x4000);
	v3d_clb_raw(&b, raw, sizeof(raw));
	v3d_clb_op(&b, V3D_CL_FLUSH);
	h_clb(h, &r, RCL, 0x4000);
	h_rcl_begin(h, &r, 16, 16);
	h_rcl_end(&r);
	REQUIRE(v3d_clb_ok(&b) && v3d_clb_ok(&r));
	return (struct h_job){ .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&b), .rcl_start = RCL,
			       .rcl_end = v3d_clb_gpu_addr(&r) };
}

/* One record of a block: its structure and where it starts. */
struct rec {
	enum v3d_cl_struct kind;
	uint32_t at;
};

/* The records the validator must check for a block of `attrs` attribute records; returns how
 * many. GS variant: the geometry record, then parameters, before the GL record. */
static uint32_t block_records(int ver, bool gs, uint32_t attrs, struct rec *out)
{
	uint32_t n = 0, prefix = gs ? 36u : 0u, gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
	if (gs)
		out[n++] = (struct rec){ V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD, 0 };
	out[n++] = (struct rec){ V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, prefix };
	for (uint32_t a = 0; a < attrs; a++)
		out[n++] = (struct rec){ V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, prefix + gl + 16u * a };
	return n;
}

/* Every address field of the records: code fields at `code`, the others at `data`. */
static void fill_block(int ver, uint8_t *block, const struct rec *recs, uint32_t n, uint32_t code, uint32_t data)
{
	for (uint32_t r = 0; r < n; r++) {
		const struct v3d_cl_addr_field *f;
		size_t nf = v3d_cl_struct_address_fields(ver, recs[r].kind, &f);
		for (size_t i = 0; i < nf; i++)
			v3d_cl_set_address(block + recs[r].at, f[i].start, f[i].size, f[i].size < 32 ? code : data);
	}
}

static void test_every_field_of_every_record(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t *block = h_ptr(&h, REC);
		for (int gs = 0; gs < 2; gs++) {
			uint8_t op = gs ? V3D_CL_GL_SHADER_STATE_INCLUDING_GS : V3D_CL_GL_SHADER_STATE;
			for (uint32_t attrs = 1; attrs <= 16; attrs++) {
				struct rec recs[2 + 17];
				uint32_t n = block_records(ver, gs, attrs + 1, recs); /* one more: not read */
				memset(block, 0, 0x800);
				fill_block(ver, block, recs, n, CODE, VBO);
				struct h_job j = shader_job(&h, op, REC, attrs);
				H_ACCEPT(&h, &j);
				for (uint32_t r = 0; r < n; r++) {
					const struct v3d_cl_addr_field *f;
					size_t nf = v3d_cl_struct_address_fields(ver, recs[r].kind, &f);
					for (size_t i = 0; i < nf; i++) {
						uint8_t *p = block + recs[r].at;
						v3d_cl_set_address(p, f[i].start, f[i].size, UNMAPPED);
						if (r + 1 == n) { /* the record past the count */
							H_ACCEPT(&h, &j);
						} else {
							H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, f[i].name);
							CHECK_EQ(h.err.addr, REC + recs[r].at);
							CHECK_EQ(h.err.bad_addr, UNMAPPED);
						}
						v3d_cl_set_address(p, f[i].start, f[i].size, f[i].size < 32 ? CODE : VBO);
					}
				}
			}
		}
		h_fini(&h);
	}
}

/* A code field must reach a whole instruction (8 B) and a pointer a word (4 B) inside one BO. The
 * block lives in ODD (its size 4 mod 8), so the fields are measured against the BO the block's
 * own lookup found: 4 bytes before ODD's end hold a pointer, not an instruction; an address below
 * ODD does not wrap into it. */
#define ODD 0x00220000u
#define ODD_END (ODD + 0x1004u)
static void test_field_reach_at_a_bo_end(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		h_bo(&h, ODD, 0x1004);
		uint8_t *block = h_ptr(&h, ODD + 0x100);
		struct rec recs[3];
		uint32_t n = block_records(ver, false, 2, recs);
		fill_block(ver, block, recs, n, ODD + 0x800, ODD + 0xc00);
		struct h_job j = shader_job(&h, V3D_CL_GL_SHADER_STATE, ODD + 0x100, 2);
		H_ACCEPT(&h, &j);
		for (uint32_t r = 0; r < n; r++) {
			uint8_t *p = block + recs[r].at;
			const struct v3d_cl_addr_field *f;
			size_t nf = v3d_cl_struct_address_fields(ver, recs[r].kind, &f);
			for (size_t i = 0; i < nf; i++) {
				bool code = f[i].size < 32;
				uint32_t keep = v3d_cl_get_address(p, f[i].start, f[i].size);
				static const struct {
					uint32_t addr;
					bool code_ok, ptr_ok;
				} cases[] = {
					{ ODD_END - 12u, true, true }, { ODD_END - 4u, false, true }, { ODD_END - 2u, false, false },
					{ ODD_END, false, false }, { ODD - 8u, false, false }, { ODD - 4u, false, false },
					{ 0, false, true }, /* an unused pointer; no shader code */
				};
				for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
					uint32_t addr = cases[c].addr;
					v3d_cl_set_address(p, f[i].start, f[i].size, addr);
					if (v3d_cl_get_address(p, f[i].start, f[i].size) != addr)
						continue; /* not an address the field can hold */
					if (code ? cases[c].code_ok : cases[c].ptr_ok) {
						H_ACCEPT(&h, &j);
					} else {
						H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, f[i].name);
					}
				}
				v3d_cl_set_address(p, f[i].start, f[i].size, keep);
			}
		}
		H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

/* Fields in another BO than the block's (DATA2): each is looked up, and a field outside right
 * after one in DATA2 is still refused; the same block twice in a job is checked once and kept. */
static void test_fields_across_bos(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t *block = h_ptr(&h, REC);
		struct rec recs[4];
		uint32_t n = block_records(ver, false, 3, recs);
		memset(block, 0, 0x100);
		fill_block(ver, block, recs, n, CODE, VBO);
		struct h_job j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 3);
		/* attribute 1 in DATA2, attribute 2 back in DATA: accepted */
		v3d_cl_set_address(block + recs[2].at, 0, 32, DATA2 + 0xffc);
		H_ACCEPT(&h, &j);
		/* attribute 2 past DATA2's end (not DATA's): refused, after the lookup moved to DATA2 */
		v3d_cl_set_address(block + recs[3].at, 0, 32, DATA2 + 0x1000);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "0x00211000");
		CHECK_EQ(h.err.addr, REC + recs[3].at);
		/* a word straddling DATA2's end */
		v3d_cl_set_address(block + recs[3].at, 0, 32, DATA2 + 0xffe);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		v3d_cl_set_address(block + recs[3].at, 0, 32, VBO);
		H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

/* Between the blocks in their shared shadow only zeroes, for every gap length a block's size
 * leaves (1..16 attribute records), after a job whose blocks filled the validator's copy with
 * nonzero bytes there. */
static void test_gaps_between_blocks_are_zero(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		uint8_t *block = h_ptr(&h, REC);
		struct rec recs[2 + 16];
		uint32_t n = block_records(ver, false, 16, recs);
		memset(block, 0xa5, 0x200);
		fill_block(ver, block, recs, n, CODE, VBO); /* the other bytes stay 0xa5 */
		for (uint32_t first = 1; first <= 16; first++) {
			uint8_t raw[10]; /* first a job of one 16-record block: the copy holds 0xa5 there */
			for (int p = 0; p < 2; p++) {
				raw[5 * p] = V3D_CL_GL_SHADER_STATE;
				v3d_cl_set_address(raw + 5 * p + 1, V3D_CL_GL_SHADER_ADDRESS, REC);
				v3d_cl_set(raw + 5 * p + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, 16);
			}
			struct v3d_clb b, r;
			h_clb(&h, &b, BCL, 0x4000);
			v3d_clb_raw(&b, raw, 5);
			v3d_clb_op(&b, V3D_CL_FLUSH);
			h_clb(&h, &r, RCL, 0x4000);
			h_rcl_begin(&h, &r, 16, 16);
			h_rcl_end(&r);
			REQUIRE(v3d_clb_ok(&b) && v3d_clb_ok(&r));
			struct h_job j = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&b), .rcl_start = RCL,
					   .rcl_end = v3d_clb_gpu_addr(&r) };
			H_ACCEPT(&h, &j);
			/* now `first` records, then 16 at another address: the gap after the first block */
			v3d_cl_set(raw + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, first);
			v3d_cl_set_address(raw + 6, V3D_CL_GL_SHADER_ADDRESS, REC + 0x200);
			memcpy(block + 0x200, block, 0x200);
			h_clb(&h, &b, BCL, 0x4000);
			v3d_clb_raw(&b, raw, 10);
			v3d_clb_op(&b, V3D_CL_FLUSH);
			REQUIRE(v3d_clb_ok(&b));
			j.bcl_end = v3d_clb_gpu_addr(&b);
			H_ACCEPT(&h, &j);
			CHECK_EQ(h.res.nr_blocks, 2);
			uint8_t *pkt = h_shadow_ptr(&h, h.res.bcl_start);
			uint32_t a = v3d_cl_get_address(pkt + 1, V3D_CL_GL_SHADER_ADDRESS);
			uint32_t c = v3d_cl_get_address(pkt + 6, V3D_CL_GL_SHADER_ADDRESS);
			uint32_t size = gl + 16u * first;
			REQUIRE(c - a >= size && c - a - size < 32);
			CHECK(memcmp(h_shadow_ptr(&h, a), block, size) == 0);
			CHECK(memcmp(h_shadow_ptr(&h, c), block, gl + 16u * 16u) == 0);
			unsigned nonzero = 0;
			for (uint32_t i = size; i < c - a; i++)
				nonzero += h_shadow_ptr(&h, a)[i] != 0;
			CHECK_EQ(nonzero, 0);
		}
		h_fini(&h);
	}
}

/* Blocks named again are found, across the block table's growth (it doubles as the job passes
 * 128, 256 blocks): 300 distinct blocks, each named twice, make 300 blocks, and each packet names
 * its own block's shadow. */
static void test_blocks_found_across_table_growth(void)
{
	enum { N = 300 };
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct rec recs[2];
		uint32_t n = block_records(ver, false, 1, recs);
		for (uint32_t i = 0; i < N; i++) {
			uint8_t *block = h_ptr(&h, DATA + 0x4000 + 64u * i);
			fill_block(ver, block, recs, n, CODE, VBO + 4u * i); /* each its own bytes */
		}
		struct v3d_clb b, r;
		h_clb(&h, &b, BCL, 0x4000);
		for (uint32_t k = 0; k < 2 * N; k++) { /* 0, 1, 0, 2, 1, 3, 2, ...: each twice */
			uint32_t i = k % 2 ? (k / 2 + 1) % N : k / 2;
			uint8_t raw[5] = { V3D_CL_GL_SHADER_STATE };
			v3d_cl_set_address(raw + 1, V3D_CL_GL_SHADER_ADDRESS, DATA + 0x4000 + 64u * i);
			v3d_cl_set(raw + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, 1);
			v3d_clb_raw(&b, raw, sizeof(raw));
		}
		v3d_clb_op(&b, V3D_CL_FLUSH);
		h_clb(&h, &r, RCL, 0x4000);
		h_rcl_begin(&h, &r, 16, 16);
		h_rcl_end(&r);
		REQUIRE(v3d_clb_ok(&b) && v3d_clb_ok(&r));
		struct h_job j = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&b), .rcl_start = RCL,
				   .rcl_end = v3d_clb_gpu_addr(&r) };
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_blocks, N);
		const uint8_t *pkt = h_shadow_ptr(&h, h.res.bcl_start);
		uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		unsigned wrong = 0;
		for (uint32_t k = 0; k < 2 * N; k++) {
			uint32_t i = k % 2 ? (k / 2 + 1) % N : k / 2;
			uint32_t at = v3d_cl_get_address(pkt + 5u * k + 1u, V3D_CL_GL_SHADER_ADDRESS);
			const uint8_t *shadow = h_shadow_ptr(&h, at);
			wrong += !shadow || memcmp(shadow, h_ptr(&h, DATA + 0x4000 + 64u * i), gl + 16u) != 0;
		}
		CHECK_EQ(wrong, 0);
		h_fini(&h);
	}
}

int main(void)
{
	RUN_TEST(test_blocks_found_across_table_growth);
	RUN_TEST(test_gaps_between_blocks_are_zero);
	RUN_TEST(test_every_field_of_every_record);
	RUN_TEST(test_field_reach_at_a_bo_end);
	RUN_TEST(test_fields_across_bos);
	return test_finish();
}
