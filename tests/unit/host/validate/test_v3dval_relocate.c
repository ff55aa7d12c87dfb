/* V3D validator relocation and shadows on 4.2 and 7.1: packet relocations (applied to the shadow,
 * never the guest; checked after relocation; malformed ones rejected), shader-record relocations
 * keeping the flag bits around narrow address fields (GL Shader State's attribute count, the
 * code addresses' threading flags), TOCTOU (guest changes after validation do not reach the
 * shadow), and the CLE read-ahead slack of every list shadow. */
#include "v3dval_harness.h"

#define CL 0x00100000u
#define DATA 0x00200000u
#define FOREIGN 0x00300000u
#define CL_BO 0u
#define DATA_BO 1u

static void setup(struct harness *h, int ver)
{
	h_init(h, ver);
	h_bo(h, CL, 0x10000);
	h_bo(h, DATA, 0x10000);
	h_foreign(h, FOREIGN, 0x10000);
}

/* rcl: config (18 B), tile (4 B), store at +22 (address from the caller, maybe 0), EOT, EOR */
#define STORE_OFF 22u
static struct h_job store_rcl(struct harness *h, uint32_t addr)
{
	struct v3d_clb b;
	h_clb(h, &b, CL, 0x1000);
	h_rcl_begin(h, &b, 16, 16);
	v3d_clb_tile_coordinates(&b, 0, 0);
	REQUIRE(b.len == STORE_OFF);
	h_ls(&b, true, addr, 64);
	v3d_clb_op(&b, V3D_CL_END_OF_TILE_MARKER);
	h_rcl_end(&b);
	REQUIRE(v3d_clb_ok(&b));
	return (struct h_job){ .rcl_start = CL, .rcl_end = v3d_clb_gpu_addr(&b) };
}

static void test_packet_relocs(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j = store_rcl(&h, 0);
		struct v3dval_reloc r = { .cl_bo = CL_BO, .cl_offset = STORE_OFF, .bo_index = DATA_BO, .bo_offset = 0x100,
					  .field_start = 64, .field_size = 32, .kind = V3DVAL_RELOC_PACKET };
		j.relocs = &r;
		j.nr_relocs = 1;
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.relocs_applied, 1);
		uint8_t *sp = h_shadow_ptr(&h, h.res.rcl_start) + STORE_OFF;
		CHECK_EQ(v3d_cl_get_address(sp + 1, V3D_CL_LS_ADDRESS), DATA + 0x100);
		CHECK_EQ(v3d_cl_get_address(h_ptr(&h, CL) + STORE_OFF + 1, V3D_CL_LS_ADDRESS), 0); /* guest untouched */
		CHECK_EQ(v3d_cl_get(sp + 1, V3D_CL_LS_STRIDE), 64); /* the rest of the packet kept */
		/* relocated addresses are checked like any other */
		r.bo_offset = 0x10000 - 512;
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Address 0x0020fe00");
		r.bo_offset = 0x100;
		/* not an address field of the packet */
		r.field_start = 28;
		r.field_size = 20;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, "not an address field");
		r.field_start = 64;
		r.field_size = 32;
		/* inside the packet rather than at it */
		r.cl_offset = STORE_OFF + 1;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, "inside the packet");
		r.cl_offset = STORE_OFF;
		/* bad indices and offsets */
		r.bo_index = 7;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, "relocation 0");
		r.bo_index = DATA_BO;
		r.bo_offset = 0x10001;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, NULL);
		r.bo_offset = 0x100;
		r.kind = 9;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, NULL);
		r.kind = V3DVAL_RELOC_PACKET;
		/* a reloc for bytes the GPU never reads is ignored */
		r.cl_offset = 0x800;
		j = store_rcl(&h, DATA);
		j.relocs = &r;
		j.nr_relocs = 1;
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.relocs_applied, 0);
		/* equal positions: the later entry wins */
		struct v3dval_reloc two[2] = { r, r };
		two[0].cl_offset = two[1].cl_offset = STORE_OFF;
		two[1].bo_offset = 0x200;
		j.relocs = two;
		j.nr_relocs = 2;
		H_ACCEPT(&h, &j);
		CHECK_EQ(v3d_cl_get_address(h_shadow_ptr(&h, h.res.rcl_start) + STORE_OFF + 1, V3D_CL_LS_ADDRESS), DATA + 0x200);
		h_fini(&h);
	}
}

#define REC (DATA + 0x100)
#define CODE (DATA + 0x1000)
#define UNIF (DATA + 0x2000)
#define VBO (DATA + 0x3000)

static void test_shader_state_relocs(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		const struct v3d_cl_addr_field *f;
		size_t nf = v3d_cl_struct_address_fields(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &f);
		/* the guest record: every address 0, the flag bits under each code address set */
		uint8_t *rec = h_ptr(&h, REC);
		for (size_t i = 0; i < nf; i++)
			if (f[i].size < 32)
				v3d_cl_set(rec, f[i].start - 3, 3, 0x5);
		struct v3dval_reloc r[16];
		uint32_t n = 0;
		for (size_t i = 0; i < nf; i++)
			r[n++] = (struct v3dval_reloc){ CL_BO, 0, DATA_BO, (f[i].size < 32 ? CODE : UNIF) - DATA,
							f[i].start, f[i].size, V3DVAL_RELOC_RECORD };
		for (uint32_t i = 0; i < 3; i++)
			r[n++] = (struct v3dval_reloc){ CL_BO, 0, DATA_BO, VBO - DATA + 0x100 * i, 0, 32, V3DVAL_RELOC_RECORD };
		for (uint32_t i = 0; i < n; i++) {
			r[i].cl_bo = DATA_BO;
			r[i].cl_offset = REC - DATA + (i < nf ? 0 : gl + 16 * (i - (uint32_t)nf));
		}
		/* the bin list: GL_SHADER_STATE with address 0 and 3 attribute arrays, relocated to REC */
		struct v3d_clb b, rc;
		h_clb(&h, &b, CL, 0x1000);
		v3d_clb_gl_shader_state(&b, 0, 3);
		v3d_clb_op(&b, V3D_CL_FLUSH);
		h_clb(&h, &rc, CL + 0x1000, 0x1000);
		h_rcl_begin(&h, &rc, 16, 16);
		h_rcl_end(&rc);
		r[n++] = (struct v3dval_reloc){ CL_BO, 0, DATA_BO, REC - DATA, 5, 27, V3DVAL_RELOC_PACKET };
		struct h_job j = { .bcl_start = CL, .bcl_end = v3d_clb_gpu_addr(&b), .rcl_start = CL + 0x1000,
				   .rcl_end = v3d_clb_gpu_addr(&rc), .relocs = r, .nr_relocs = n };
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.relocs_applied, n);
		uint8_t *pkt = h_shadow_ptr(&h, h.res.bcl_start);
		CHECK_EQ(v3d_cl_get(pkt + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES), 3); /* kept under the address */
		uint32_t srec = v3d_cl_get_address(pkt + 1, V3D_CL_GL_SHADER_ADDRESS);
		uint8_t *shadow = h_shadow_ptr(&h, srec);
		for (size_t i = 0; i < nf; i++) {
			uint32_t want = f[i].size < 32 ? CODE : UNIF;
			CHECK_EQ(v3d_cl_get_address(shadow, f[i].start, f[i].size), want);
			if (f[i].size < 32)
				CHECK_EQ(v3d_cl_get(shadow, f[i].start - 3, 3), 0x5); /* thread flags kept */
		}
		for (uint32_t i = 0; i < 3; i++)
			CHECK_EQ(v3d_cl_get_address(shadow + gl + 16 * i, 0, 32), VBO + 0x100 * i);
		CHECK_EQ(v3d_cl_get_address(rec, f[0].start, f[0].size), 0); /* the guest record untouched */
		/* a record reloc that starts no structure, or names a non-address field */
		r[0].cl_offset += 4;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, "does not start a shader state structure");
		r[0].cl_offset -= 4;
		r[0].field_start += 1;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, "not an address field");
		r[0].field_start -= 1;
		/* a relocated code address outside the context */
		r[0].bo_offset = 0x10000; /* one past the BO: allowed as an offset, not as an address */
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "outside the context's buffers");
		h_fini(&h);
	}
}

static void test_toctou(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j = store_rcl(&h, DATA);
		H_ACCEPT(&h, &j);
		uint32_t len = j.rcl_end - j.rcl_start;
		uint8_t before[64];
		memcpy(before, h_shadow_ptr(&h, h.res.rcl_start), len);
		CHECK(memcmp(before, h_ptr(&h, CL), len) == 0);
		/* the guest rewrites its list after validation: the store now targets another client */
		v3d_cl_set_address(h_ptr(&h, CL) + STORE_OFF + 1, V3D_CL_LS_ADDRESS, FOREIGN);
		h_ptr(&h, CL)[0] = V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE;
		CHECK(memcmp(before, h_shadow_ptr(&h, h.res.rcl_start), len) == 0);
		CHECK_EQ(v3d_cl_get_address(h_shadow_ptr(&h, h.res.rcl_start) + STORE_OFF + 1, V3D_CL_LS_ADDRESS), DATA);
		/* and the executor runs the validated bytes: the store lands in the context's BO */
		memset(h_ptr(&h, DATA), 0, 1024);
		struct v3d_cle_fault fault;
		CHECK_EQ(h_run(&h, &fault), V3D_CLE_DONE);
		h_fini(&h);
	}
}

static void test_readahead_slack(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j = store_rcl(&h, DATA);
		H_ACCEPT(&h, &j);
		uint32_t len = j.rcl_end - j.rcl_start, ra = v3d_cle_readahead(ver);
		REQUIRE(h.nr_shadows == 1);
		CHECK_EQ(h.shadows[0].size, len + ra);
		unsigned nonzero = 0;
		for (uint32_t i = len; i < len + ra; i++)
			nonzero += h.shadows[0].data[i] != 0; /* the allocator handed out 0xa5 */
		CHECK_EQ(nonzero, 0);
		/* the shadow runs without a fault although nothing follows it in GPU memory */
		struct v3d_cle_fault fault;
		CHECK_EQ(h_run(&h, &fault), V3D_CLE_DONE);
		/* without the slack the CLE's prefetch would fault past the list */
		h.shadows[0].size = len;
		CHECK_EQ(h_run(&h, &fault), V3D_CLE_FAULT);
		CHECK_EQ(fault.addr, h.shadows[0].addr); /* the fake MMU refuses the whole prefetch */
		h.shadows[0].size = len + ra;
		h_fini(&h);
	}
}

int main(void)
{
	RUN_TEST(test_packet_relocs);
	RUN_TEST(test_shader_state_relocs);
	RUN_TEST(test_toctou);
	RUN_TEST(test_readahead_slack);
	return test_finish();
}
