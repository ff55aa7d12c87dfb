/* The bench's TCP delay line: bytes arrive intact and in order both ways, and a round trip takes
 * at least twice the one-way delay. */
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net_delay.h"
#include "test.h"

#define BYTES (1u << 20)

static int listen_fd;

/* Echoes everything back until the peer closes. */
static void *echo_thread(void *arg)
{
	(void)arg;
	int c = accept(listen_fd, NULL, NULL);
	if (c < 0)
		return NULL;
	char buf[8192];
	ssize_t n;
	while ((n = recv(c, buf, sizeof(buf), 0)) > 0) {
		ssize_t off = 0;
		while (off < n) {
			ssize_t w = send(c, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
			if (w <= 0)
				break;
			off += w;
		}
	}
	close(c);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int connect_port(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void *writer_thread(void *arg)
{
	int fd = *(int *)arg;
	uint8_t *buf = malloc(BYTES);
	for (unsigned i = 0; i < BYTES; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	size_t off = 0;
	while (off < BYTES) {
		ssize_t w = send(fd, buf + off, BYTES - off, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	shutdown(fd, SHUT_WR);
	free(buf);
	return NULL;
}

int main(void)
{
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	alarm(60); /* a broken relay fails the test instead of hanging it */
	REQUIRE(bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	REQUIRE(listen(listen_fd, 4) == 0);
	REQUIRE(getsockname(listen_fd, (struct sockaddr *)&a, &al) == 0);
	char port[8];
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	pthread_t echo;
	REQUIRE(pthread_create(&echo, NULL, echo_thread, NULL) == 0);

	struct net_delay *d;
	unsigned dport = 0;
	REQUIRE(net_delay_start("127.0.0.1", "127.0.0.1", port, 5000, &d, &dport) == 0);
	int fd = connect_port(dport);
	REQUIRE(fd >= 0);

	/* Round trips: each at least 2 x 5 ms. */
	for (int i = 0; i < 5; i++) {
		char ping = (char)('a' + i), pong = 0;
		double t0 = now_ms();
		CHECK(send(fd, &ping, 1, 0) == 1);
		CHECK(recv(fd, &pong, 1, MSG_WAITALL) == 1);
		double rt = now_ms() - t0;
		CHECK(pong == ping);
		CHECK(rt >= 10.0);
	}

	/* 1 MiB through both directions, intact and in order. */
	pthread_t w;
	REQUIRE(pthread_create(&w, NULL, writer_thread, &fd) == 0);
	uint8_t *got = malloc(BYTES);
	size_t off = 0;
	ssize_t n;
	while (off < BYTES && (n = recv(fd, got + off, BYTES - off, 0)) > 0)
		off += (size_t)n;
	CHECK(off == BYTES);
	unsigned bad = 0;
	for (unsigned i = 0; i < BYTES; i++)
		bad += got[i] != (uint8_t)(i * 2654435761u >> 13);
	CHECK(bad == 0);
	/* The echo side closes once our shutdown travelled through: the relay passes EOF on. */
	CHECK(recv(fd, got, 1, 0) == 0);
	pthread_join(w, NULL);
	free(got);
	close(fd);
	pthread_join(echo, NULL);
	net_delay_stop(d);
	close(listen_fd);
	printf("net delay line: round trips >= 10 ms, 1 MiB echoed intact, EOF passed on\n");
	return test_finish();
}
