/* The raw tcp wire client of itest_raw.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "itest_raw.h"
#include "test.h"
#include "transport.h"

bool itest_raw_connect(struct itest_raw *r, const char *tcp_uri)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	const char *hp = strncmp(tcp_uri, "tcp:", 4) == 0 ? tcp_uri + 4 : tcp_uri;
	const char *colon = strrchr(hp, ':');
	if (!colon)
		return false;
	char host[64];
	snprintf(host, sizeof(host), "%.*s", (int)(colon - hp), hp);
	r->fd = ferry_tcp_connect(host, colon + 1);
	ferry_frame_reader_init(&r->rd);
	return r->fd >= 0;
}

uint32_t itest_raw_send(struct itest_raw *r, struct ferry_msg *m)
{
	struct ferry_buf buf;
	ferry_buf_init(&buf);
	m->seq = ++r->seq;
	REQUIRE(ferry_wire_encode(m, &buf) == 0);
	REQUIRE(ferry_frame_send(r->fd, buf.data, buf.len, NULL, 0) == 0);
	ferry_buf_free(&buf);
	return m->seq;
}

bool itest_raw_next(struct itest_raw *r, struct ferry_msg *m)
{
	if (r->rd.len)
		ferry_frame_reader_next(&r->rd);
	for (int i = 0; i < 10000; i++) {
		int g = ferry_frame_read(r->fd, &r->rd);
		if (g == 0) {
			usleep(1000);
			continue;
		}
		return g > 0 && ferry_wire_decode(r->rd.payload, r->rd.len, m, NULL) == 0;
	}
	return false;
}

void itest_raw_close(struct itest_raw *r)
{
	ferry_frame_reader_fini(&r->rd);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
