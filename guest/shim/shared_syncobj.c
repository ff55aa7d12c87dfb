/* Shared opaque syncobj fds (shared_syncobj.h). The queued record is also the lock: a writer takes
 * it out of the queue, so another writer or a reader finds the queue empty and waits briefly for
 * it to come back. Every process holding the fd shares one open file, so flock could not tell
 * them apart. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shared_syncobj.h"
#include "shim.h"

#define RECORD_MAGIC 0x4e595346u /* "FSYN" */

struct record {
	uint32_t magic;
	uint32_t has_fence; /* 1: one SCM_RIGHTS fd, a sync file */
	uint64_t gen;
};

/* A writer holds the record out of the queue for one send. A reader or writer that waits longer
 * than this takes the writer for dead (or hostile, or preempted: then its record lands after the
 * recovered one, as if it had written first), so a holder that never puts it back costs the
 * others at most this per operation. */
#define TOKEN_WAIT_NS (2 * 1000 * 1000ll)

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int send_record(int fd, const struct record *r, int sync_fd)
{
	struct iovec iov = { (void *)r, sizeof(*r) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (sync_fd >= 0) {
		memset(&cb, 0, sizeof(cb));
		m.msg_control = cb.buf;
		m.msg_controllen = sizeof(cb.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &sync_fd, sizeof(int));
	}
	ssize_t n = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n == (ssize_t)sizeof(*r) ? 0 : n < 0 ? -errno : -EIO;
}

/* One record off the queue (flags: MSG_PEEK or 0), its fd (when want_fd) in *sync_fd. -EAGAIN
 * when the queue is empty, -EPROTO for anything but a record as send_record makes them. */
static int recv_record(int fd, int flags, struct record *r, int *sync_fd)
{
	struct iovec iov = { r, sizeof(*r) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (sync_fd) {
		*sync_fd = -1;
		m.msg_control = cb.buf;
		m.msg_controllen = sizeof(cb.buf);
	}
	ssize_t n = recvmsg(fd, &m, flags | MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	int got = -1;
	for (struct cmsghdr *c = sync_fd ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int x;
			memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < 0 && i == 0)
				got = x;
			else
				close(x);
		}
	}
	bool ok = n == (ssize_t)sizeof(*r) && !(m.msg_flags & MSG_TRUNC) && r->magic == RECORD_MAGIC &&
		  r->has_fence <= 1 && r->gen != 0 && (!sync_fd || (!(m.msg_flags & MSG_CTRUNC) && (got >= 0) == (r->has_fence == 1)));
	if (!ok) {
		if (got >= 0)
			close(got);
		return -EPROTO;
	}
	if (sync_fd)
		*sync_fd = got;
	return 0;
}

/* recv_record, waiting (bounded; not at all without wait) while a writer has the record out. */
static int recv_record_wait(int fd, int flags, bool wait, struct record *r, int *sync_fd)
{
	int64_t end = now_ns() + (wait ? TOKEN_WAIT_NS : 0);
	long pause_ns = 20 * 1000;
	for (;;) {
		int e = recv_record(fd, flags, r, sync_fd);
		if (e != -EAGAIN)
			return e;
		if (now_ns() >= end)
			return -EBUSY;
		struct timespec ts = { 0, pause_ns };
		nanosleep(&ts, NULL);
		if (pause_ns < 1000 * 1000)
			pause_ns *= 2;
	}
}

int shim_shared_syncobj_new(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Autobind: the kernel picks an unused abstract name to connect the socket to itself. */
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(a);
	struct record r = { RECORD_MAGIC, 0, SHIM_SHARED_SYNCOBJ_FIRST_GEN };
	int e = 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(sa_family_t)) < 0 || getsockname(fd, (struct sockaddr *)&a, &len) < 0 ||
	    connect(fd, (struct sockaddr *)&a, len) < 0)
		e = -errno;
	if (!e)
		e = send_record(fd, &r, -1);
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

bool shim_shared_syncobj_is(int fd)
{
	struct stat st;
	int type = 0, domain = 0;
	socklen_t len = sizeof(type), dlen = sizeof(domain);
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) < 0 || type != SOCK_DGRAM || domain != AF_UNIX)
		return false;
	struct sockaddr_un self, peer;
	socklen_t slen = sizeof(self), plen = sizeof(peer);
	memset(&self, 0, sizeof(self));
	memset(&peer, 0, sizeof(peer));
	if (getsockname(fd, (struct sockaddr *)&self, &slen) < 0 || getpeername(fd, (struct sockaddr *)&peer, &plen) < 0)
		return false;
	return slen > sizeof(sa_family_t) && slen == plen && memcmp(&self, &peer, slen) == 0;
}

int shim_shared_syncobj_read(int fd, uint64_t known_gen, bool wait, uint64_t *gen, int *sync_fd)
{
	struct record r;
	/* The record alone first: most reads find it unchanged and need no fd. */
	int e = recv_record_wait(fd, MSG_PEEK, wait, &r, NULL);
	if (e < 0)
		return e;
	if (r.gen == known_gen)
		return 0;
	if ((e = recv_record_wait(fd, MSG_PEEK, wait, &r, sync_fd)) < 0)
		return e;
	*gen = r.gen;
	return 1;
}

int shim_shared_syncobj_write(int fd, int sync_fd, uint64_t *gen)
{
	struct record old;
	int old_fd = -1;
	int e = recv_record_wait(fd, 0, true, &old, &old_fd);
	bool have_old = e == 0;
	/* No valid record came back: a writer died holding it, or another process wrote garbage.
	 * Start a generation no reader has cached. */
	uint64_t next = have_old ? old.gen + 1 : (uint64_t)now_ns();
	if (e == -EBUSY)
		shim_log(false, "a shared syncobj's state was not put back by its last writer: replacing it");
	/* Whatever else is queued (only after such a recovery) goes. */
	for (int i = 0; i < 16; i++) {
		struct record x;
		int xfd = -1;
		int d = recv_record(fd, 0, &x, &xfd);
		if (xfd >= 0)
			close(xfd);
		if (d == -EAGAIN || (d < 0 && d != -EPROTO))
			break;
	}
	if (next == 0)
		next = 1;
	struct record r = { RECORD_MAGIC, sync_fd >= 0, next };
	e = send_record(fd, &r, sync_fd);
	/* Not sent (the user's fds in flight over their limit, no buffer): the old state goes
	 * back, so readers are not left without one. */
	if (e < 0 && have_old)
		(void)send_record(fd, &old, old_fd);
	if (old_fd >= 0)
		close(old_fd);
	if (e < 0)
		return e;
	*gen = next;
	return 0;
}
