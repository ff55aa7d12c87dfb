/* The sync-state dump's line format (host/debug/sync_dump.c): golden lines for every command and
 * object kind, and snprintf-style truncation. */
#include "sync_dump.h"
#include "test.h"

static void check_line(const struct sync_op *op, const char *want)
{
	char buf[512];
	int n = sync_dump_line(op, buf, sizeof(buf));
	CHECK_EQ(n, (long long)strlen(want));
	if (strcmp(buf, want)) {
		fprintf(stderr, "got:  %swant: %s", buf, want);
		CHECK(!"line differs");
	}
}

static void test_gpu_waits(void)
{
	struct sync_op op = {
		.queue = { 2, 7, 0 }, .started = true, .cmd = SYNC_CMD_WAIT_REG_MEM, .seqno = 41,
		.obj_kind = SYNC_OBJ_MEMORY, .obj = 0x100002040ull, .live = 0x5, .arg = 0x60, .op = "eq",
		.has_mask = true, .mask = 0xffff,
	};
	check_line(&op, "queue:GPU-2-7-0 exec:S cmd:WAIT_REG_MEM seqno:41 obj:0x0000000100002040 "
			"live_value:0x0000000000000005 | op:eq arg_value:0x0000000000000060 mask:0x0000ffff\n");

	op.obj_kind = SYNC_OBJ_REGISTER;
	op.obj = 0x883;
	op.op = "gt";
	op.is_signed = true;
	check_line(&op, "queue:GPU-2-7-0 exec:S cmd:WAIT_REG_MEM seqno:41 obj:reg:0x00883 "
			"live_value:0x0000000000000005 | op:gt arg_value:0x0000000000000060 mask:0x0000ffff signed\n");

	struct sync_op gte = {
		.queue = { 1, 1, 3 }, .started = true, .cmd = SYNC_CMD_WAIT_MEM_GTE, .seqno = 1,
		.obj_kind = SYNC_OBJ_MEMORY, .obj = 0x200000000ull, .live = 0xffffffffu, .arg = 1, .op = "ge",
		.is_signed = true,
	};
	check_line(&gte, "queue:GPU-1-1-3 exec:S cmd:WAIT_MEM_GTE seqno:1 obj:0x0000000200000000 "
			 "live_value:0x00000000ffffffff | op:ge arg_value:0x0000000000000001 signed\n");
}

static void test_host_ops(void)
{
	struct sync_op wait = {
		.queue = { 3, 1, 1 }, .started = true, .cmd = SYNC_CMD_FENCE_WAIT, .seqno = 9,
		.obj_kind = SYNC_OBJ_TIMELINE, .timeline = { 3, 1, 0 }, .live = 4, .arg = 6, .op = "ge",
	};
	check_line(&wait, "queue:GPU-3-1-1 exec:S cmd:FENCE_WAIT seqno:9 obj:GPU-3-1-0 "
			  "live_value:0x0000000000000004 | op:ge arg_value:0x0000000000000006\n");
	struct sync_op sig = {
		.queue = { 3, 1, 1 }, .started = false, .cmd = SYNC_CMD_SIGNAL, .seqno = 9,
		.obj_kind = SYNC_OBJ_TIMELINE, .timeline = { 3, 1, 1 }, .live = 8, .arg = 9, .op = "set",
	};
	check_line(&sig, "queue:GPU-3-1-1 exec:P cmd:SIGNAL seqno:9 obj:GPU-3-1-1 "
			 "live_value:0x0000000000000008 | op:set arg_value:0x0000000000000009\n");
	/* Extremes print in full. */
	sig.queue = (struct sync_queue_id){ 4294967295u, 4294967295u, 63 };
	sig.seqno = 4294967295u;
	sig.live = UINT64_MAX;
	check_line(&sig, "queue:GPU-4294967295-4294967295-63 exec:P cmd:SIGNAL seqno:4294967295 obj:GPU-3-1-1 "
			 "live_value:0xffffffffffffffff | op:set arg_value:0x0000000000000009\n");
}

static void test_truncation_and_bad_input(void)
{
	struct sync_op op = {
		.queue = { 1, 1, 0 }, .cmd = SYNC_CMD_SIGNAL, .obj_kind = SYNC_OBJ_TIMELINE, .op = "set",
	};
	char full[256];
	int n = sync_dump_line(&op, full, sizeof(full));
	REQUIRE(n > 20 && (size_t)n < sizeof(full));
	char small[16];
	memset(small, 'x', sizeof(small));
	CHECK_EQ(sync_dump_line(&op, small, sizeof(small)), n);
	CHECK_EQ(small[sizeof(small) - 1], '\0');
	CHECK(!strncmp(small, full, sizeof(small) - 1));
	CHECK_EQ(sync_dump_line(&op, NULL, 0), n);

	op.cmd = (enum sync_cmd)99;
	CHECK_EQ(sync_dump_line(&op, full, sizeof(full)), -1);
	op.cmd = SYNC_CMD_SIGNAL;
	op.obj_kind = (enum sync_obj_kind)99;
	CHECK_EQ(sync_dump_line(&op, full, sizeof(full)), -1);
	CHECK(sync_cmd_name((enum sync_cmd)99) == NULL);
	CHECK(!strcmp(sync_cmd_name(SYNC_CMD_FENCE_WAIT), "FENCE_WAIT"));
}

int main(void)
{
	RUN_TEST(test_gpu_waits);
	RUN_TEST(test_host_ops);
	RUN_TEST(test_truncation_and_bad_input);
	return test_finish();
}
