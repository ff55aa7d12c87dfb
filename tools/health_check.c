/* `ferry health-check`: the bytes of a load balancer's ferry handshake probe — the HELLO frame a
 * checker sends and the bytes every HelloReply of this protocol starts with — made by the real
 * encoder, printed as HAProxy tcp-check lines (contrib/haproxy/ferry-farm.cfg holds them; a test
 * compares the two, so the config follows the wire). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ferry/wire.h"
#include "subcommands.h"

/* The checker's request seq: the reply echoes it, so it is part of the expected bytes. */
#define PROBE_SEQ 1u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* A HelloReply's bytes after the length prefix up to the end of the root Message table: root
 * offset, file id "FRY1", the Message vtable and table (kind HelloReply, seq). What follows (the
 * HelloReply table, the server string) and the length prefix vary with the server's version and
 * device name; these do not, for any server of this protocol version. */
static int reply_prefix(struct ferry_buf *out, size_t *start, size_t *len)
{
	struct ferry_msg r = { .kind = FERRY_MSG_HELLO_REPLY, .seq = PROBE_SEQ };
	r.u.hello_reply = (struct ferry_hello_reply){
		.version = FERRY_PROTOCOL_VERSION,
		/* Any non-zero value: a server always has fence pages, and FlatBuffers leaves a
		 * zero field out, which would change the layout. */
		.features = FERRY_FEATURE_FENCE_PAGE,
		.server = "x",
	};
	int err = ferry_wire_encode(&r, out);
	if (err < 0)
		return err;
	const uint8_t *pl = out->data + 4;
	size_t plen = out->len - 4;
	if (plen < 8)
		return -EPROTO;
	uint32_t root = le32(pl);
	if ((size_t)root + 4 > plen)
		return -EPROTO;
	int32_t vt_rel = (int32_t)le32(pl + root);
	int64_t vt = (int64_t)root - vt_rel;
	if (vt < 0 || (size_t)vt + 4 > plen)
		return -EPROTO;
	uint16_t table_size = (uint16_t)(pl[vt + 2] | pl[vt + 3] << 8);
	if ((size_t)root + table_size > plen)
		return -EPROTO;
	*start = 4;
	*len = (size_t)root + table_size;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry health-check [--send | --expect]\n"
		   "  Prints HAProxy's tcp-check lines for a probe that speaks ferry's handshake:\n"
		   "  send a HELLO (seq %u), expect the bytes a HelloReply starts with.\n"
		   "  --send    only the HELLO frame, hex\n"
		   "  --expect  only the expected reply bytes, hex\n", PROBE_SEQ);
}

int cmd_health_check(int argc, char **argv)
{
	bool send = true, expect = true;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--send") == 0) {
			expect = false;
		} else if (strcmp(argv[i], "--expect") == 0) {
			send = false;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!send && !expect) {
		usage(stderr);
		return 2;
	}
	struct ferry_msg hello = { .kind = FERRY_MSG_HELLO, .seq = PROBE_SEQ };
	hello.u.hello.version = FERRY_PROTOCOL_VERSION;
	struct ferry_buf h, r;
	ferry_buf_init(&h);
	ferry_buf_init(&r);
	size_t start = 0, len = 0;
	int err = ferry_wire_encode(&hello, &h);
	if (err == 0)
		err = reply_prefix(&r, &start, &len);
	if (err < 0) {
		fprintf(stderr, "ferry health-check: cannot encode the probe: %s\n", strerror(-err));
	} else {
		bool both = send && expect;
		if (send) {
			printf("%s", both ? "tcp-check send-binary " : "");
			put_hex(stdout, h.data, h.len);
			printf("\n");
		}
		if (expect) {
			printf("%s", both ? "tcp-check expect binary " : "");
			put_hex(stdout, r.data + start, len);
			printf("\n");
		}
	}
	ferry_buf_free(&h);
	ferry_buf_free(&r);
	return err < 0 ? 1 : 0;
}
