/* One client connection of ferryd: admission (--max-clients, the fd reserve), the frame reader
 * feeding libferry-host, and a non-blocking output queue (frames with their fds) drained on
 * EPOLLOUT, with back-pressure: a client that stops reading is not read either, and is cut off
 * if it stays stuck. A frame the host stopped at its validation budget is continued once per
 * pass, after the other clients had their turn. A tcp: client first passes its TLS handshake and
 * authentication (auth.c) with nothing but a small read buffer and a deadline spent on it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ferry/errno_text.h>

#include "remote.h"
#include "server.h"
#include "conn_io.h"

struct out_frame {
	struct out_frame *next;
	size_t len, off;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds; /* fds still to send: only before the frame's first byte went out */
	bool mirror; /* queued by the remote layer (counted in conn.out_mirror_bytes) */
	uint8_t data[];
};

struct conn {
	struct server *srv;
	struct conn *prev, *next;
	/* On srv->watch (watched): a connection the loop must look at every pass, whether or not
	 * its socket woke us (see needs_watch). */
	struct conn *watch_prev, *watch_next;
	bool watched;
	struct conn_io io;
	/* tcp: clients: AUTH_TLS (handshake), AUTH_HELLO (its first frame, small, decides), then
	 * AUTH_DONE with a host client. Unix clients start AUTH_DONE. */
	enum { AUTH_TLS, AUTH_HELLO, AUTH_DONE } auth;
	int64_t auth_deadline_ns;
	const char *cert; /* ferryd_auth_client_cert's verdict */
	bool tls_peeked;  /* its first byte was a TLS handshake record */
	bool plain_on_tls; /* it spoke plain TCP to a TLS listener: told so at its HELLO */
	struct ferry_frame_reader reader;
	struct ferry_host_client *client;
	struct out_frame *out_head, *out_tail;
	size_t out_bytes;
	size_t out_mirror_bytes; /* of out_bytes, the remote layer's (FERRYD_OUT_CAP_REMOTE) */
	unsigned out_fds;   /* our dups riding with queued frames */
	unsigned ev_mask;   /* the epoll events registered */
	bool throttled;     /* over FERRYD_OUT_THROTTLE_*: its requests are not read */
	int64_t stuck_since_ns; /* throttled: when its queue last moved */
	bool dead;
	bool busy; /* a frame in progress (FERRY_HOST_IN_PROGRESS): no new frame until it is done */
	pid_t pid; /* the peer process (SO_PEERCRED), 0 if unknown */
	bool remote; /* accepted on a tcp: listener: no fd passing, no shared memory */
	struct remote *mirror; /* remote: the layer standing in for shared memory (remote.c) */
	char name[96];
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* What makes the per-pass walks (conn_resume_busy, conn_timeout_ms, conn_reap_dead) look at a
 * connection: a frame in progress, a stuck-deadline, its freeing; and every tcp: one (its
 * authentication deadline, GnuTLS's decrypted bytes and its memory mirror's work, none of which
 * its socket reports). A plain unix client that is merely connected costs those walks nothing,
 * so they grow with the busy clients, not with all of them. */
static bool needs_watch(const struct conn *c)
{
	return c->dead || c->busy || c->throttled || c->remote;
}

/* Puts c on the watch list once it needs it. It leaves only in conn_reap_dead's sweep, so the
 * walks may follow watch_next while what they call adds connections (at the head). */
static void watch(struct conn *c)
{
	if (c->watched || !needs_watch(c))
		return;
	struct server *srv = c->srv;
	c->watch_prev = NULL;
	c->watch_next = srv->watch;
	if (srv->watch)
		srv->watch->watch_prev = c;
	srv->watch = c;
	c->watched = true;
}

static void unwatch(struct conn *c)
{
	if (!c->watched)
		return;
	if (c->watch_prev)
		c->watch_prev->watch_next = c->watch_next;
	else
		c->srv->watch = c->watch_next;
	if (c->watch_next)
		c->watch_next->watch_prev = c->watch_prev;
	c->watch_prev = c->watch_next = NULL;
	c->watched = false;
}

static void set_dead(struct conn *c, const char *why)
{
	if (!c->dead)
		ferryd_log(FERRY_LOG_INFO, "%s: closing (%s)", c->name, why);
	c->dead = true;
	watch(c);
}

/* What a tcp client cost on the wire (docs/network.md), once, as its connection is freed: also
 * when ferryd stops before it saw the client go. */
static void log_wire(const struct conn *c)
{
	if (!c->mirror)
		return;
	struct ferry_wire_counters tx, rx;
	remote_get_counters(c->mirror, &tx, &rx);
	ferryd_log(FERRY_LOG_INFO, "%s: wire: sent %llu frames, %llu bytes (BoData %llu bytes as %llu); "
		   "received %llu frames, %llu bytes (BoData %llu bytes as %llu)", c->name,
		   (unsigned long long)tx.frames, (unsigned long long)tx.bytes,
		   (unsigned long long)tx.bo_data_raw, (unsigned long long)tx.bo_data_wire,
		   (unsigned long long)rx.frames, (unsigned long long)rx.bytes,
		   (unsigned long long)rx.bo_data_raw, (unsigned long long)rx.bo_data_wire);
}

/* Reads while not throttled, writes while output is queued. HUP and ERR come regardless. */
static void update_epoll(struct conn *c)
{
	unsigned mask = (c->throttled ? 0 : EPOLLIN) | (c->out_head ? EPOLLOUT : 0);
	if (c->ev_mask == mask || c->dead)
		return;
	struct epoll_event ev = { .events = mask, .data.ptr = c };
	if (epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->io.fd, &ev) == 0)
		c->ev_mask = mask;
}

static bool over_throttle(const struct conn *c)
{
	return c->out_bytes >= FERRYD_OUT_THROTTLE_BYTES || c->out_fds >= FERRYD_OUT_THROTTLE_FDS;
}

/* Called whenever the queue grew or shrank. */
static void update_throttle(struct conn *c)
{
	if (!c->throttled && over_throttle(c)) {
		c->throttled = true;
		watch(c);
		c->stuck_since_ns = now_ns();
		ferryd_log(FERRY_LOG_DEBUG, "%s: not reading its requests until it reads its replies "
			   "(%zu bytes, %u fds queued)", c->name, c->out_bytes, c->out_fds);
	} else if (c->throttled && c->out_bytes < FERRYD_OUT_THROTTLE_BYTES / 2 &&
		   c->out_fds < FERRYD_OUT_THROTTLE_FDS / 2) {
		c->throttled = false;
	}
	update_epoll(c);
}

static void drop_queued_fds(struct conn *c, struct out_frame *f)
{
	for (int i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	c->out_fds -= (unsigned)f->nfds;
	c->srv->out_fds -= (unsigned)f->nfds;
	f->nfds = 0;
}

/* Sends queued frames until the socket is full. */
static void flush_out(struct conn *c)
{
	while (c->out_head && !c->dead) {
		struct out_frame *f = c->out_head;
		long n = conn_io_send(&c->io, f->data + f->off, f->len - f->off, f->fds, f->nfds);
		if (n < 0) {
			set_dead(c, strerror((int)-n));
			return;
		}
		if (n == 0)
			break;
		drop_queued_fds(c, f); /* they went with the first byte */
		c->srv->counters.bytes_out[c->remote] += (uint64_t)n;
		c->stuck_since_ns = now_ns();
		f->off += (size_t)n;
		c->out_bytes -= (size_t)n;
		if (f->mirror)
			c->out_mirror_bytes -= (size_t)n;
		if (f->off < f->len)
			break;
		c->out_head = f->next;
		if (!c->out_head)
			c->out_tail = NULL;
		free(f);
	}
	update_throttle(c);
}

/* Queues a frame (with the fds the caller lends) behind what is queued already. mirror: the
 * remote layer's, under its own cap. */
static int conn_queue(struct conn *c, const void *frame, size_t len, const int *fds, int nfds, bool mirror)
{
	if (c->dead)
		return -1;
	size_t sent = 0;
	if (!c->out_head) {
		long n = conn_io_send(&c->io, frame, len, fds, nfds);
		if (n < 0) {
			set_dead(c, strerror((int)-n));
			return -1;
		}
		sent = (size_t)n;
		c->srv->counters.bytes_out[c->remote] += sent;
		if (sent == len)
			return 0;
	}
	size_t rest = len - sent;
	if (mirror ? c->out_bytes + rest > FERRYD_OUT_CAP_REMOTE
		   : c->out_bytes - c->out_mirror_bytes + rest > FERRYD_OUT_CAP) {
		set_dead(c, "output queue over its cap: the client stopped reading");
		return -1;
	}
	struct out_frame *f = malloc(sizeof(*f) + rest);
	if (!f) {
		set_dead(c, "out of memory");
		return -1;
	}
	f->next = NULL;
	f->len = rest;
	f->off = 0;
	f->nfds = 0;
	f->mirror = mirror;
	c->out_mirror_bytes += mirror ? rest : 0;
	memcpy(f->data, (const uint8_t *)frame + sent, rest);
	if (c->out_tail)
		c->out_tail->next = f;
	else
		c->out_head = f;
	c->out_tail = f;
	c->out_bytes += rest;
	/* The caller lends the fds; if none went out yet, keep our own copies for later. They
	 * count against the client's --max-client-fds (ops.held_fds) and throttle it. */
	for (int i = 0; sent == 0 && i < nfds && i < FERRY_MAX_FRAME_FDS; i++) {
		int d = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
		if (d < 0) {
			char e[80], why[128];
			snprintf(why, sizeof(why), "cannot keep a queued reply's fd: %s",
				 ferry_errno_text(errno, e, sizeof(e)));
			set_dead(c, why);
			return -1; /* the frame is freed with the connection */
		}
		f->fds[f->nfds++] = d;
		c->out_fds++;
		c->srv->out_fds++;
	}
	update_throttle(c);
	return 0;
}

/* libferry-host's send callback. A remote client gets its view of the fence pages and mapped
 * BOs brought up to date first, and the frame without its fds (remote.c keeps them). */
static int conn_send(void *cookie, const void *frame, size_t len, const int *fds, int nfds)
{
	struct conn *c = cookie;
	if (c->mirror) {
		const void *out;
		size_t out_len;
		if (c->dead || remote_out(c->mirror, frame, len, fds, nfds, &out, &out_len) < 0) {
			set_dead(c, "cannot keep its remote view of the GPU's memory");
			return -1;
		}
		return out ? conn_queue(c, out, out_len, NULL, 0, false) : 0;
	}
	return conn_queue(c, frame, len, fds, nfds, false);
}

/* The remote layer's frames: mostly BO bytes, which a single map or retire of a large BO makes
 * more of than FERRYD_OUT_CAP at once. They are bounded by what the client's BOs hold (each sync
 * sends only bytes not sent before, and a throttled client submits nothing new), so they have
 * their own, larger cap and do not count against the host's frames' one. */
static int conn_send_remote(void *cookie, const void *frame, size_t len)
{
	return conn_queue(cookie, frame, len, NULL, 0, true);
}

static int conn_send_held(void *cookie, const void *frame, size_t len)
{
	return conn_queue(cookie, frame, len, NULL, 0, false);
}

static const struct remote_ops conn_remote_ops = { .send = conn_send_remote, .send_frame = conn_send_held,
						   .held_cap = FERRYD_OUT_CAP };

void conn_remote_counters(const struct conn *c, struct ferry_wire_counters *tx, struct ferry_wire_counters *rx)
{
	if (c->mirror) {
		remote_get_counters(c->mirror, tx, rx);
	} else {
		if (tx)
			*tx = (struct ferry_wire_counters){ 0 };
		if (rx)
			*rx = (struct ferry_wire_counters){ 0 };
	}
}

static unsigned conn_held_fds(void *cookie)
{
	const struct conn *c = cookie;
	/* the socket, the fds queued with its replies, and what the remote layer keeps */
	return 1 + c->out_fds + remote_held_fds(c->mirror);
}

static void set_busy(struct conn *c, bool busy);

/* Submit rings: a ring record taken in ferry_host_dispatch stopped at the validation budget; the
 * connection is busy as if its own frame had (conn_resume_busy goes on with it). */
static void conn_host_busy(void *cookie)
{
	set_busy(cookie, true);
}

static const struct ferry_host_client_ops conn_ops = { .send = conn_send, .held_fds = conn_held_fds,
						       .busy = conn_host_busy };

static void set_mask(struct conn *c, unsigned mask)
{
	struct epoll_event ev = { .events = mask, .data.ptr = c };
	if (c->ev_mask != mask && epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->io.fd, &ev) == 0)
		c->ev_mask = mask;
}

/* One line a second at most: anyone who can reach the port can make these happen. */
static void auth_log(struct conn *c, const char *what)
{
	unsigned long more;
	if (!log_limit_pass(&c->srv->auth_log, &more))
		return;
	if (more)
		ferryd_log(FERRY_LOG_WARN, "%s: %s (%lu more not logged)", c->name, what, more);
	else
		ferryd_log(FERRY_LOG_WARN, "%s: %s", c->name, what);
}

/* Tells the client why (an ERROR frame answering its HELLO, best effort: nothing else is queued)
 * and closes the connection. */
static void auth_refuse(struct conn *c, uint32_t seq, const char *why)
{
	struct ferry_msg m = { .kind = FERRY_MSG_ERROR, .seq = seq };
	m.u.error = (struct ferry_error){ .request_kind = FERRY_MSG_NONE, .error = -EACCES, .message = why };
	struct ferry_buf buf;
	ferry_buf_init(&buf);
	if (ferry_wire_encode(&m, &buf) == 0)
		(void)conn_io_send(&c->io, buf.data, buf.len, NULL, 0);
	ferry_buf_free(&buf);
	/* Unread bytes at close would make the kernel reset the connection, and the client could
	 * lose the reason with it. */
	if (!c->io.tls) {
		char sink[512];
		for (int i = 0; i < 8 && recv(c->io.fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
			;
	}
	shutdown(c->io.fd, SHUT_WR);
	char line[300];
	snprintf(line, sizeof(line), "refused: %s", why);
	auth_log(c, line);
	set_dead(c, why);
}

/* A step of the non-blocking TLS handshake. */
static void auth_handshake(struct conn *c)
{
	if (!c->tls_peeked) {
		uint8_t b;
		ssize_t n = recv(c->io.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			set_dead(c, "client closed the connection");
			return;
		}
		if (b != 0x16) {
			/* Not a TLS ClientHello: a plain ferry client. Hear its HELLO in plain framing
			 * and answer it with the reason, which it can read. */
			gnutls_deinit(c->io.tls);
			c->io.tls = NULL;
			c->plain_on_tls = true;
			c->auth = AUTH_HELLO;
			return;
		}
		c->tls_peeked = true;
	}
	int r = gnutls_handshake(c->io.tls);
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
		set_mask(c, gnutls_record_get_direction(c->io.tls) ? EPOLLOUT : EPOLLIN);
		return;
	}
	if (r < 0) {
		char why[200];
		snprintf(why, sizeof(why), "TLS handshake failed: %s", gnutls_strerror(r));
		auth_log(c, why);
		set_dead(c, why);
		return;
	}
	c->cert = ferryd_auth_client_cert(&c->io);
	c->auth = AUTH_HELLO;
	set_mask(c, EPOLLIN);
}

/* The first frame of a tcp: client: its HELLO decides. True when it is let in (its host client
 * now exists and the frame is to be handled), false when refused. */
static bool auth_hello(struct conn *c)
{
	struct ferry_msg m;
	const char *why = NULL;
	if (ferry_wire_decode(c->reader.payload, c->reader.len, &m, &why) < 0 || m.kind != FERRY_MSG_HELLO) {
		auth_refuse(c, 0, c->plain_on_tls ? "the server expects TLS (this client speaks plain TCP)"
				   : "the first message must be HELLO");
		return false;
	}
	if (c->plain_on_tls) {
		auth_refuse(c, m.seq, "the server expects TLS (this client speaks plain TCP: unset FERRY_INSECURE)");
		return false;
	}
	const char *no = ferryd_auth_check(c->srv->auth, c->io.tls != NULL, c->cert, m.u.hello.token);
	if (no) {
		auth_refuse(c, m.seq, no);
		return false;
	}
	c->client = ferry_host_client_new(c->srv->host, &conn_ops, c, c->name);
	/* Its memory mirror too only now: before it is let in, a client costs no more than this. */
	if (c->client && c->remote)
		c->mirror = remote_new(c->srv->remote_epfd, &conn_remote_ops, c, c->name);
	if (!c->client || (c->remote && !c->mirror)) {
		set_dead(c, "cannot set up a new client");
		return false;
	}
	c->auth = AUTH_DONE;
	c->srv->nr_pending_auth--;
	c->reader.max_len = FERRY_MAX_FRAME_SIZE;
	ferryd_log(FERRY_LOG_INFO, "%s: authenticated (%s)", c->name,
		   c->io.tls && c->cert ? "client certificate" : m.u.hello.token && m.u.hello.token[0] ? "token" :
		   "none needed: --insecure");
	return true;
}

static void set_busy(struct conn *c, bool busy)
{
	if (c->busy != busy)
		c->srv->busy_conns += busy ? 1u : -1u;
	c->busy = busy;
	watch(c);
}

static void read_frames(struct conn *c, int64_t slice_end)
{
	/* Back-pressure is checked before each frame: one frame's replies carry at most a few fds. */
	/* A remote client with diff work pending is as busy: its frames wait for the BoData. */
	for (int i = 0; i < FERRYD_FRAMES_PER_WAKEUP && !c->dead && !c->throttled && !c->busy &&
			!remote_pending(c->mirror) && (i == 0 || now_ns() < slice_end); i++) {
		int r = conn_io_read_frame(&c->io, &c->reader);
		if (r == 0) {
			/* Drained between frames: a buffer one large frame grew is not kept for a client
			 * that has gone quiet (the next large frame grows it again). */
			if (c->reader.hdr_got == 0 && c->reader.payload_cap > FERRYD_READ_KEEP_BYTES) {
				free(c->reader.payload);
				c->reader.payload = NULL;
				c->reader.payload_cap = 0;
			}
			return;
		}
		if (r < 0 && c->auth != AUTH_DONE && r == -EMSGSIZE) {
			auth_refuse(c, 0, "the first frame must be a HELLO of at most 4096 bytes");
			return;
		}
		if (r < 0) {
			set_dead(c, r == -EPIPE ? "client closed the connection" : strerror(-r));
			return;
		}
		c->srv->counters.bytes_in[c->remote] += 4u + (uint64_t)c->reader.len; /* length prefix + payload */
		if (c->auth != AUTH_DONE && !auth_hello(c)) {
			ferry_frame_reader_next(&c->reader);
			return;
		}
		int fds[FERRY_MAX_FRAME_FDS];
		int nfds = c->reader.nfds;
		memcpy(fds, c->reader.fds, sizeof(fds));
		if (c->mirror) {
			int m = remote_in(c->mirror, c->reader.payload, c->reader.len, fds, &nfds);
			if (m <= 0) {
				ferry_frame_reader_next(&c->reader);
				if (m < 0)
					set_dead(c, "cannot answer its memory requests");
				continue;
			}
		}
		int ret = ferry_host_client_handle(c->client, c->reader.payload, c->reader.len, fds, nfds);
		ferry_frame_reader_next(&c->reader);
		if (ret == FERRY_HOST_IN_PROGRESS)
			set_busy(c, true); /* the host kept the frame; conn_resume_busy goes on with it */
		else if (ret < 0)
			set_dead(c, ret == -EPIPE ? "client gone" : "protocol violations");
	}
}

void conn_event(struct conn *c, unsigned events, int64_t slice_ns)
{
	if (c->auth == AUTH_TLS) {
		auth_handshake(c);
		if (c->auth != AUTH_HELLO || c->dead)
			return;
		events |= EPOLLIN; /* the HELLO may have come with the handshake's last records */
	}
	if (events & EPOLLOUT)
		flush_out(c);
	/* A throttled client's hang-up would be reported again and again (level-triggered) while its
	 * requests are not read: nobody is left to take its replies, so it is done. A busy
	 * connection's turn is conn_resume_busy's, once per pass. */
	if (c->throttled && (events & (EPOLLHUP | EPOLLERR)))
		set_dead(c, "client hung up with replies unread");
	else if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->busy)
		read_frames(c, now_ns() + slice_ns);
}

bool conn_mirror_pending(const struct server *srv)
{
	for (const struct conn *c = srv->watch; c; c = c->watch_next)
		if (remote_pending(c->mirror) && !c->dead)
			return true;
	return false;
}

void conn_resume_busy(struct server *srv)
{
	for (struct conn *c = srv->watch, *next; c; c = next) {
		next = c->watch_next;
		/* A remote client's diff work, one slice a pass; done, what is left of its turn reads. */
		if (remote_pending(c->mirror) && !c->dead) {
			if (remote_resume(c->mirror) < 0) {
				set_dead(c, "cannot keep its remote view of the GPU's memory");
				continue;
			}
			if (!remote_pending(c->mirror) && !c->busy)
				read_frames(c, now_ns() + FERRYD_CLIENT_SLICE_NS);
			if (!c->busy)
				continue;
		}
		/* Records GnuTLS decrypted already: the socket will not wake us for them. */
		if (!c->busy && !c->dead && !c->throttled && c->auth != AUTH_TLS && conn_io_pending(&c->io)) {
			read_frames(c, now_ns() + FERRYD_CLIENT_SLICE_NS);
			continue;
		}
		if (!c->busy || c->dead)
			continue;
		int64_t slice_end = now_ns() + FERRYD_CLIENT_SLICE_NS;
		int ret = ferry_host_client_resume(c->client);
		if (ret == FERRY_HOST_IN_PROGRESS)
			continue;
		set_busy(c, false);
		if (ret < 0)
			set_dead(c, ret == -EPIPE ? "client gone" : "protocol violations");
		else
			read_frames(c, slice_end); /* what is left of its turn */
	}
}

/* "tcp 192.0.2.1:5678" for a network peer. */
static void peer_address(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss = { 0 }; /* its family is read even when the peer is gone already */
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(buf, len, ss.ss_family == AF_INET6 ? "tcp [%s]:%s" : "tcp %s:%s", host, port);
}

static struct conn *conn_new(struct server *srv, int fd, const struct ucred *cred, const struct listener *l)
{
	bool remote = l->remote;
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->srv = srv;
	c->io.fd = fd;
	ferry_frame_reader_init(&c->reader);
	c->auth = AUTH_DONE;
	if (remote) {
		/* Until it is authenticated, a tcp: client costs a small read buffer and a slot. */
		c->auth = l->tls ? AUTH_TLS : AUTH_HELLO;
		c->reader.max_len = FERRYD_HELLO_MAX_BYTES;
		c->auth_deadline_ns = now_ns() + (int64_t)ferryd_auth_timeout_ms(srv->auth) * 1000000;
		if (l->tls && ferryd_auth_session(srv->auth, &c->io) < 0) {
			ferry_frame_reader_fini(&c->reader);
			free(c);
			return NULL;
		}
	}
	unsigned id = ++srv->next_conn_id;
	c->pid = cred ? cred->pid : 0;
	c->remote = remote;
	if (remote) {
		char peer[80];
		peer_address(fd, peer, sizeof(peer));
		snprintf(c->name, sizeof(c->name), "client %u (%s)", id, peer);
	} else if (cred)
		snprintf(c->name, sizeof(c->name), "client %u (pid %d uid %u)", id, (int)cred->pid, (unsigned)cred->uid);
	else
		snprintf(c->name, sizeof(c->name), "client %u", id);
	if (c->auth == AUTH_DONE)
		c->client = ferry_host_client_new(srv->host, &conn_ops, c, c->name);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	if ((c->auth == AUTH_DONE && !c->client) || epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		ferry_host_client_free(c->client);
		remote_free(c->mirror);
		ferry_frame_reader_fini(&c->reader);
		if (c->io.tls)
			gnutls_deinit(c->io.tls);
		free(c);
		return NULL;
	}
	c->ev_mask = EPOLLIN;
	srv->nr_conns++;
	srv->nr_pending_auth += c->auth != AUTH_DONE;
	c->next = srv->conns;
	if (srv->conns)
		srv->conns->prev = c;
	srv->conns = c;
	watch(c);
	return c;
}

void conn_reserve_fd_open(struct server *srv)
{
	srv->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void log_accept_failure(struct server *srv, int err)
{
	unsigned long more;
	if (!log_limit_pass(&srv->accept_log, &more))
		return;
	if (more)
		ferryd_log(FERRY_LOG_WARN, "accept: %s (%lu more accept failures not logged)", strerror(err), more);
	else
		ferryd_log(FERRY_LOG_WARN, "accept: %s", strerror(err));
}

/* Out of fds: the listen fd is level-triggered, so leaving the connection pending would wake us
 * forever. Free the reserve fd, accept the connection and close it at once (the client sees its
 * connection closed), then take the reserve back. Returns false when nothing could be shed. */
static bool shed_one(struct server *srv, struct listener *l)
{
	if (srv->reserve_fd < 0)
		conn_reserve_fd_open(srv); /* fds may have been freed since */
	if (srv->reserve_fd < 0)
		return false;
	close(srv->reserve_fd);
	srv->reserve_fd = -1;
	int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		srv->counters.refused[l->remote]++;
	}
	conn_reserve_fd_open(srv);
	return fd >= 0;
}

/* fds counted as they come and go: connections, their queued fds, the host's per-client fds, and
 * what the remote layer keeps for tcp: clients (a BO fd each, a context's page and eventfd). */
static long live_fds(const struct server *srv)
{
	struct ferry_host_stats st;
	ferry_host_get_stats(srv->host, &st);
	long n = (long)srv->nr_conns + (long)srv->out_fds + (long)st.client_fds;
	for (const struct conn *c = srv->watch; c; c = c->watch_next) /* every tcp: one is on it */
		n += remote_held_fds(c->mirror);
	return n;
}

void conn_count_fds(struct server *srv)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return; /* out of fds right now: keep the old base, the accepted fd's number still bounds */
	long n = -1; /* the directory's own fd */
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	srv->fds_base = n - live_fds(srv);
	srv->fds_counted_ns = now_ns();
	srv->accepts_since_count = 0;
}

/* fds in use now, at least: the kernel gives the lowest free number, so every fd below the
 * one just accepted is open. */
static unsigned long fds_in_use(const struct server *srv, int accepted)
{
	long est = srv->fds_base + live_fds(srv);
	if (est < accepted + 1)
		est = accepted + 1;
	return (unsigned long)est;
}

static void log_refusal(struct server *srv, const char *why)
{
	unsigned long more;
	if (log_limit_pass(&srv->refuse_log, &more))
		ferryd_log(FERRY_LOG_WARN, "refusing a new client: %s (%lu more refusals not logged)", why, more);
}

/* Tells the new connection why (an ERROR frame, best effort: its socket buffer is empty) and
 * closes it. A TLS client could not read a plain frame: it only sees the connection closed. */
static void refuse(struct server *srv, int fd, int err, const char *why, bool tls)
{
	struct ferry_msg m = { .kind = FERRY_MSG_ERROR, .seq = 0 };
	m.u.error = (struct ferry_error){ .request_kind = FERRY_MSG_NONE, .error = err, .message = why };
	struct ferry_buf buf;
	ferry_buf_init(&buf);
	if (!tls && ferry_wire_encode(&m, &buf) == 0)
		(void)ferry_frame_send_some(fd, buf.data, buf.len, NULL, 0);
	ferry_buf_free(&buf);
	close(fd);
	log_refusal(srv, why);
}

static unsigned max_pending_auth(const struct server *srv)
{
	unsigned half = srv->max_clients / 2 ? srv->max_clients / 2 : 1;
	return half < FERRYD_MAX_PENDING_AUTH ? half : FERRYD_MAX_PENDING_AUTH;
}

/* 0 to serve the connection on fd, else the errno to refuse it with (why filled). remote: from
 * a tcp: listener, so not authenticated yet. */
static int admit(struct server *srv, int fd, const struct ucred *cred, bool remote, char *why, size_t n)
{
	if (srv->nr_conns >= srv->max_clients) {
		snprintf(why, n, "ferryd serves at most %u clients (--max-clients)", srv->max_clients);
		return -EUSERS;
	}
	if (remote && srv->nr_pending_auth >= max_pending_auth(srv)) {
		snprintf(why, n, "ferryd has %u connections still authenticating: try again later",
			 srv->nr_pending_auth);
		return -EUSERS;
	}
	/* One process cannot take every connection slot: a flood from one program leaves room for
	 * the others (a real DRM client opens a few; the shim one per render-node open). */
	if (cred && cred->pid > 0) {
		unsigned same = 0;
		for (const struct conn *c = srv->conns; c; c = c->next)
			same += !c->dead && c->pid == cred->pid;
		if (same >= srv->max_conns_per_process) {
			snprintf(why, n, "process %d already has %u connections to ferryd "
				 "(--max-connections-per-process)", (int)cred->pid, same);
			return -EUSERS;
		}
	}
	if (!srv->fd_limit)
		return 0;
	/* Recount now and then, so fds nobody counts (control connections, capture files) cannot
	 * drift the estimate far; and before refusing, so a stale estimate refuses nobody. */
	if (++srv->accepts_since_count >= 64)
		conn_count_fds(srv);
	unsigned long used = fds_in_use(srv, fd);
	if (used + srv->fd_reserve >= srv->fd_limit && now_ns() - srv->fds_counted_ns > 100 * 1000 * 1000) {
		conn_count_fds(srv);
		used = fds_in_use(srv, fd);
	}
	if (used + srv->fd_reserve >= srv->fd_limit) {
		snprintf(why, n, "ferryd is short of fds (%lu of %lu in use; the last %lu are kept for connected "
			 "clients, --fd-reserve): Too many open files (EMFILE)", used, srv->fd_limit, srv->fd_reserve);
		return -EMFILE;
	}
	return 0;
}

int conn_accept_all(struct server *srv, struct listener *l)
{
	/* Bounded per pass like every client's frames: a connection flood would otherwise keep the
	 * loop accepting (and refusing) for as long as it lasts, while connected clients wait. The
	 * listening socket is level-triggered, so what is left is reported on the next pass. */
	for (unsigned n = 0; n < FERRYD_ACCEPTS_PER_PASS; n++) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			if (err == EAGAIN || err == EINTR || err == ECONNABORTED)
				return 0;
			log_accept_failure(srv, err);
			if ((err == EMFILE || err == ENFILE) && shed_one(srv, l))
				continue;
			return -err;
		}
		char why[200];
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		/* A network peer has no process here: SO_PEERCRED would name nobody. */
		bool known = !l->remote && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0;
		if (l->remote) {
			int one = 1; /* frames are whole messages: do not hold a reply back for Nagle */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		}
		int err = admit(srv, fd, known ? &cred : NULL, l->remote, why, sizeof(why));
		if (err < 0) {
			srv->counters.refused[l->remote]++;
			refuse(srv, fd, err, why, l->tls);
			continue;
		}
		if (!conn_new(srv, fd, known ? &cred : NULL, l)) {
			srv->counters.refused[l->remote]++;
			ferryd_log(FERRY_LOG_WARN, "cannot set up a new client");
			close(fd);
		} else {
			srv->counters.accepted[l->remote]++;
		}
	}
	return 0;
}

static void conn_free(struct conn *c)
{
	struct server *srv = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	set_busy(c, false);
	unwatch(c);
	ferry_host_client_free(c->client);
	log_wire(c);
	remote_free(c->mirror);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->io.fd, NULL);
	conn_io_close(&c->io);
	ferry_frame_reader_fini(&c->reader);
	while (c->out_head) {
		struct out_frame *f = c->out_head;
		c->out_head = f->next;
		drop_queued_fds(c, f);
		free(f);
	}
	srv->nr_conns--;
	srv->nr_pending_auth -= c->auth != AUTH_DONE;
	free(c);
}

void conn_reap_dead(struct server *srv)
{
	if (!srv->watch)
		return; /* nothing to look at: no clock read on every pass of the loop */
	int64_t now = now_ns();
	struct conn *c = srv->watch;
	while (c) {
		struct conn *next = c->watch_next;
		if (c->throttled && !c->dead && now - c->stuck_since_ns >= FERRYD_STUCK_NS) {
			char why[160];
			snprintf(why, sizeof(why), "stuck: it took none of its %zu bytes (%u fds) of replies for %lld s",
				 c->out_bytes, c->out_fds, (long long)(FERRYD_STUCK_NS / 1000000000));
			set_dead(c, why);
		}
		if (c->auth != AUTH_DONE && !c->dead && now >= c->auth_deadline_ns) {
			auth_log(c, "dropped: no TLS handshake and HELLO within --auth-timeout-ms");
			set_dead(c, "authentication timed out");
		}
		if (c->dead) {
			/* Trimmed once the frees calm down, not on each: a connection flood frees many. */
			srv->trim_at_ns = now + FERRYD_TRIM_DELAY_NS;
			conn_free(c);
		} else if (!needs_watch(c)) {
			unwatch(c);
		}
		c = next;
	}
}

void conn_trim(struct server *srv)
{
	if (!srv->trim_at_ns || now_ns() < srv->trim_at_ns)
		return;
	srv->trim_at_ns = 0;
	/* What the freed clients held (their objects, queues, buffers) is mostly back in malloc's
	 * free lists, spread over the heap where the top-of-heap trim cannot reach: give those pages
	 * back, so ferryd's footprint follows the clients it has, not the most it ever had. */
	malloc_trim(0);
}

int conn_timeout_ms(const struct server *srv, int timeout_ms)
{
	if (!srv->trim_at_ns && !srv->watch)
		return timeout_ms;
	int64_t now = now_ns();
	if (srv->trim_at_ns) {
		int64_t left = srv->trim_at_ns - now;
		int ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
		if (timeout_ms < 0 || ms < timeout_ms)
			timeout_ms = ms;
	}
	for (const struct conn *c = srv->watch; c; c = c->watch_next) {
		if (c->dead)
			continue;
		if (!c->busy && !c->throttled && c->auth != AUTH_TLS && conn_io_pending(&c->io))
			return 0; /* conn_resume_busy reads it on this pass */
		int64_t left;
		if (c->auth != AUTH_DONE)
			left = c->auth_deadline_ns - now;
		else if (c->throttled)
			left = c->stuck_since_ns + FERRYD_STUCK_NS - now;
		else
			continue;
		int ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
		if (timeout_ms < 0 || ms < timeout_ms)
			timeout_ms = ms;
	}
	return timeout_ms;
}

void conn_free_all(struct server *srv)
{
	while (srv->conns)
		conn_free(srv->conns);
}
