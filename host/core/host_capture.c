/* Submit capture: started and stopped by the operator (ferry_host_capture_*: ferryd's control
 * socket and trigger file; no wire message reaches this), matched per client / context, written
 * as .rd and/or session files (mode 0600, never through a planted link). Also the capture a
 * fault report gets: the faulting submit's frame is remembered when a crash dir is set, and
 * written next to the report — a copy of the capture taken at submit time when there was one,
 * else the BOs' contents as they are at report time, flagged post-mortem. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_internal.h"
#include "debug/rd_writer.h"

struct recent_submit {
	uint32_t client_id, ctx_id, queue_id, seqno;
	bool used;
	uint8_t *frame;
	size_t len, cap;
	char *rd_path, *session_path; /* the operator's capture of it, when it was captured */
};

struct host_capture {
	bool active;
	struct ferry_host_capture_params p;
	char dir[PATH_MAX];
	int64_t remaining; /* -1: no limit */
	uint64_t serial;   /* captures started, for file names */
	uint64_t captured, files, errors;
	char last_file[PATH_MAX];
	char last_error[PATH_MAX + 128];
	struct capture_file *files_open; /* combined mode: one per context */
	struct capture_buffers buf;
	const void *frame; /* the frame being handled */
	size_t frame_len;
	struct recent_submit recent[CAPTURE_RECENT];
	unsigned recent_next;
};

static bool crash_dir_set(const struct ferry_host *h)
{
	return h->cfg.crash_dir && h->cfg.crash_dir[0];
}

static struct host_capture *capture_get(struct ferry_host *h)
{
	if (!h->capture) {
		h->capture = calloc(1, sizeof(*h->capture));
		if (h->capture) {
			ferry_buf_init(&h->capture->buf.rd);
			ferry_buf_init(&h->capture->buf.session);
			ferry_buf_init(&h->capture->buf.scratch);
		}
	}
	return h->capture;
}

static void files_free(struct host_capture *cap)
{
	while (cap->files_open) {
		struct capture_file *f = cap->files_open;
		cap->files_open = f->next;
		free(f->bos);
		free(f);
	}
}

void capture_host_fini(struct ferry_host *h)
{
	struct host_capture *cap = h->capture;
	if (!cap)
		return;
	files_free(cap);
	for (unsigned i = 0; i < CAPTURE_RECENT; i++) {
		free(cap->recent[i].frame);
		free(cap->recent[i].rd_path);
		free(cap->recent[i].session_path);
	}
	ferry_buf_free(&cap->buf.rd);
	ferry_buf_free(&cap->buf.session);
	ferry_buf_free(&cap->buf.scratch);
	free(cap);
	h->capture = NULL;
}

/* mkdir -p with mode 0700 for what it creates. */
static int make_dir(const char *dir)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = saved;
		if (!saved)
			break;
	}
	struct stat st;
	if (stat(dir, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int ferry_host_capture_start(struct ferry_host *h, const struct ferry_host_capture_params *p, char *why, size_t n)
{
	if (!p->dir || !p->dir[0])
		HOST_FAIL(-EINVAL, "no capture directory");
	if (p->count == 0 || p->count < -1)
		HOST_FAIL(-EINVAL, "count %lld: give a positive number of submits, or -1", (long long)p->count);
	if (p->formats & ~(FERRY_CAPTURE_RD | FERRY_CAPTURE_SESSION))
		HOST_FAIL(-EINVAL, "unknown formats 0x%x", p->formats);
	if (p->gzip && p->combined)
		HOST_FAIL(-EINVAL, "--gzip needs one file per submit (a combined file is appended to)");
	if (!h->fam->capture_rd && p->formats == FERRY_CAPTURE_RD)
		HOST_FAIL(-EINVAL, "%s has no .rd format: capture %s as a session (--format session)", h->fam->name,
			  h->fam->name);
	struct host_capture *cap = capture_get(h);
	if (!cap)
		HOST_FAIL(-ENOMEM, "out of memory");
	if (strlen(p->dir) >= sizeof(cap->dir) - 128)
		HOST_FAIL(-ENAMETOOLONG, "capture directory path too long");
	int ret = make_dir(p->dir);
	if (ret < 0)
		HOST_FAIL(ret, "capture directory %s: %s", p->dir, strerror(-ret));
	files_free(cap);
	cap->p = *p;
	if (!cap->p.formats)
		cap->p.formats = FERRY_CAPTURE_RD | FERRY_CAPTURE_SESSION;
	if (!h->fam->capture_rd)
		cap->p.formats = FERRY_CAPTURE_SESSION; /* "both" means the one it has */
	snprintf(cap->dir, sizeof(cap->dir), "%s", p->dir);
	cap->p.dir = cap->dir;
	cap->remaining = p->count;
	cap->serial++;
	cap->active = true;
	host_log(h, FERRY_LOG_INFO, "capture %llu started: client %u context %u count %lld%s into %s",
		 (unsigned long long)cap->serial, p->client, p->context, (long long)p->count, p->full ? " full" : "",
		 cap->dir);
	return 0;
}

bool ferry_host_capture_stop(struct ferry_host *h)
{
	struct host_capture *cap = h->capture;
	if (!cap || !cap->active)
		return false;
	cap->active = false;
	files_free(cap);
	host_log(h, FERRY_LOG_INFO, "capture %llu stopped after %llu submits", (unsigned long long)cap->serial,
		 (unsigned long long)cap->captured);
	return true;
}

char *ferry_host_capture_status(struct ferry_host *h)
{
	struct host_capture *cap = h->capture;
	size_t len = 4 * PATH_MAX + 1024;
	char *text = malloc(len);
	if (!text)
		return NULL;
	if (!cap) {
		snprintf(text, len, "capture: off\ncaptured: 0\nfiles: 0\nerrors: 0\n");
		return text;
	}
	const struct ferry_host_capture_params *p = &cap->p;
	snprintf(text, len,
		 "capture: %s\nclient: %u\ncontext: %u\nremaining: %lld\nfull: %s\nlayout: %s\nformats: %s%s%s\n"
		 "dir: %s\ncaptured: %llu\nfiles: %llu\nerrors: %llu\nlast-file: %s\nlast-error: %s\n",
		 cap->active ? "on" : "off", p->client, p->context, (long long)cap->remaining, p->full ? "yes" : "no",
		 p->combined ? "combined" : "per-submit", (p->formats & FERRY_CAPTURE_RD) ? "rd" : "",
		 p->formats == (FERRY_CAPTURE_RD | FERRY_CAPTURE_SESSION) ? "," : "",
		 (p->formats & FERRY_CAPTURE_SESSION) ? "session" : "", cap->dir, (unsigned long long)cap->captured,
		 (unsigned long long)cap->files, (unsigned long long)cap->errors, cap->last_file, cap->last_error);
	return text;
}

void capture_note_frame(struct ferry_host *h, const void *payload, size_t len)
{
	if (!h->capture && !crash_dir_set(h))
		return;
	struct host_capture *cap = capture_get(h);
	if (!cap)
		return;
	cap->frame = payload;
	cap->frame_len = len;
}

/* Writes data to path, mode 0600, refusing to follow a link; append adds to an existing file
 * (combined captures), else the file must not exist. */
static int write_file(const char *path, const void *data, size_t len, bool append)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_EXCL);
	int fd = open(path, flags, 0600);
	if (fd < 0)
		return -errno;
	const uint8_t *p = data;
	int ret = 0;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

static int write_rd(const char *path, const struct ferry_buf *b, bool gzip, bool append)
{
	if (!gzip)
		return write_file(path, b->data, b->len, append);
	uint8_t *z;
	size_t zlen;
	int ret = rd_gzip(b->data, b->len, &z, &zlen);
	if (ret < 0)
		return ret;
	ret = write_file(path, z, zlen, append);
	free(z);
	return ret;
}

static void note_error(struct ferry_host *h, struct host_capture *cap, const char *what, int err)
{
	cap->errors++;
	snprintf(cap->last_error, sizeof(cap->last_error), "%.4000s: %.100s", what, strerror(-err));
	host_log(h, FERRY_LOG_WARN, "capture: %s", cap->last_error);
}

static struct capture_file *file_for(struct host_capture *cap, struct host_queue *q, uint32_t seqno)
{
	struct host_ctx *ctx = q->ctx;
	if (cap->p.combined) {
		for (struct capture_file *f = cap->files_open; f; f = f->next)
			if (f->client_id == ctx->client->id && f->ctx_id == ctx->id)
				return f;
	}
	struct capture_file *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->client_id = ctx->client->id;
	f->ctx_id = ctx->id;
	char base[PATH_MAX];
	if (cap->p.combined)
		snprintf(base, sizeof(base), "%.3900s/ferry-%d-%llu-c%u-x%u", cap->dir, (int)getpid(),
			 (unsigned long long)cap->serial, ctx->client->id, ctx->id);
	else
		snprintf(base, sizeof(base), "%.3900s/ferry-%d-%llu-c%u-x%u-q%u-s%u", cap->dir, (int)getpid(),
			 (unsigned long long)cap->serial, ctx->client->id, ctx->id, q->id, seqno);
	/* cap->dir leaves 128 bytes for the name: these fit. */
	snprintf(f->rd_path, sizeof(f->rd_path), "%.4000s.rd%s", base, cap->p.gzip ? ".gz" : "");
	snprintf(f->session_path, sizeof(f->session_path), "%.4000s.ferrycap", base);
	if (cap->p.combined) {
		f->next = cap->files_open;
		cap->files_open = f;
	}
	return f;
}

static struct recent_submit *remember(struct host_capture *cap, struct host_queue *q, uint32_t seqno)
{
	struct recent_submit *r = &cap->recent[cap->recent_next];
	if (!cap->frame || cap->frame_len == 0 || cap->frame_len > CAPTURE_RECENT_MAX_FRAME)
		return NULL;
	if (r->cap < cap->frame_len) {
		uint8_t *nf = realloc(r->frame, cap->frame_len);
		if (!nf)
			return NULL;
		r->frame = nf;
		r->cap = cap->frame_len;
	}
	cap->recent_next = (cap->recent_next + 1) % CAPTURE_RECENT;
	memcpy(r->frame, cap->frame, cap->frame_len);
	r->len = cap->frame_len;
	r->client_id = q->ctx->client->id;
	r->ctx_id = q->ctx->id;
	r->queue_id = q->id;
	r->seqno = seqno;
	r->used = true;
	free(r->rd_path);
	free(r->session_path);
	r->rd_path = r->session_path = NULL;
	return r;
}

void capture_submit(struct host_queue *q, uint32_t seqno, const struct ferry_msg *m, struct host_bo *const *bos,
		    uint32_t nr_bos)
{
	struct ferry_host *h = q->ctx->client->host;
	struct host_capture *cap = h->capture;
	if (!cap)
		return;
	struct recent_submit *r = crash_dir_set(h) ? remember(cap, q, seqno) : NULL;
	if (!cap->active || !cap->frame)
		return;
	if ((cap->p.client && cap->p.client != q->ctx->client->id) || (cap->p.context && cap->p.context != q->ctx->id))
		return;

	struct capture_file *f = file_for(cap, q, seqno);
	if (!f) {
		note_error(h, cap, "submit", -ENOMEM);
		return;
	}
	bool append = f->rd_started || f->session_started;
	ferry_buf_reset(&cap->buf.rd);
	ferry_buf_reset(&cap->buf.session);
	unsigned formats = cap->p.formats; /* SESSION only for families without .rd (capture start) */
	struct capture_submit a = {
		.formats = formats, .full = cap->p.full, .full_budget = UINT64_MAX, .q = q, .m = m, .bos = bos,
		.nr_bos = nr_bos, .frame = cap->frame, .frame_len = cap->frame_len,
	};
	int ret = h->fam->capture_build(&cap->buf, f, &a);
	if (ret < 0)
		note_error(h, cap, "building the capture", ret);
	if (ret == 0 && (formats & FERRY_CAPTURE_RD)) {
		ret = write_rd(f->rd_path, &cap->buf.rd, cap->p.gzip, append);
		if (ret < 0)
			note_error(h, cap, f->rd_path, ret);
		else
			snprintf(cap->last_file, sizeof(cap->last_file), "%s", f->rd_path);
	}
	if (ret == 0 && (formats & FERRY_CAPTURE_SESSION)) {
		ret = write_file(f->session_path, cap->buf.session.data, cap->buf.session.len, append);
		if (ret < 0)
			note_error(h, cap, f->session_path, ret);
		else
			snprintf(cap->last_file, sizeof(cap->last_file), "%s", f->session_path);
	}
	if (ret == 0) {
		cap->captured++;
		if (!append)
			cap->files += __builtin_popcount(formats);
		if (r) {
			r->rd_path = (formats & FERRY_CAPTURE_RD) ? strdup(f->rd_path) : NULL;
			r->session_path = (formats & FERRY_CAPTURE_SESSION) ? strdup(f->session_path) : NULL;
		}
	}
	if (!cap->p.combined) {
		free(f->bos);
		free(f);
	}
	if (cap->remaining > 0 && --cap->remaining == 0)
		ferry_host_capture_stop(h);
}

/* ---- the capture of a fault report ---- */

static int copy_file(const char *from, const char *to)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	uint8_t *data = malloc(st.st_size ? (size_t)st.st_size : 1);
	size_t got = 0;
	while (data && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	int ret = !data ? -ENOMEM : got != (size_t)st.st_size ? -EIO : write_file(to, data, got, false);
	free(data);
	return ret;
}

static struct recent_submit *find_recent(struct host_capture *cap, struct host_queue *q, uint32_t seqno)
{
	for (unsigned i = 0; i < CAPTURE_RECENT; i++) {
		struct recent_submit *r = &cap->recent[i];
		if (r->used && r->client_id == q->ctx->client->id && r->ctx_id == q->ctx->id && r->queue_id == q->id &&
		    r->seqno == seqno)
			return r;
	}
	return NULL;
}

/* Rebuilds the submit from its remembered frame against the context's BOs as they are now: .rd
 * (rd_path set: families with .rd) and session. */
static int write_post_mortem(struct host_capture *cap, struct host_queue *q, struct recent_submit *r,
			     const char *rd_path, const char *session_path, char *why, size_t n)
{
	const struct host_family_ops *fam = q->ctx->client->host->fam;
	struct ferry_msg m;
	/* The copy is malloc'd, so aligned for the decoder. */
	if (ferry_wire_decode(r->frame, r->len, &m, NULL) < 0)
		HOST_FAIL(-EINVAL, "remembered frame does not decode");
	const uint32_t *ids;
	size_t stride;
	uint32_t nr;
	if (fam->submit_bo_ids(&m, &ids, &stride, &nr) < 0)
		HOST_FAIL(-EINVAL, "remembered frame is not a %s submit", fam->name);
	struct host_bo **bos = calloc(nr ? nr : 1, sizeof(*bos));
	if (!bos)
		HOST_FAIL(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t id = *(const uint32_t *)((const char *)ids + i * stride);
		bos[i] = bo_table_find(&q->ctx->bos, id);
		if (!bos[i]) {
			free(bos);
			HOST_FAIL(-ENOENT, "bo %u was closed", id);
		}
	}
	struct capture_file f = { 0 };
	ferry_buf_reset(&cap->buf.rd);
	ferry_buf_reset(&cap->buf.session);
	struct capture_submit a = {
		.formats = (rd_path[0] ? FERRY_CAPTURE_RD : 0) | FERRY_CAPTURE_SESSION, .full = true,
		.post_mortem = true, .full_budget = CAPTURE_POST_MORTEM_OTHER_BYTES, .q = q, .m = &m, .bos = bos,
		.nr_bos = nr, .frame = r->frame, .frame_len = r->len,
	};
	int ret = fam->capture_build(&cap->buf, &f, &a);
	free(f.bos);
	free(bos);
	if (ret == 0 && rd_path[0])
		ret = write_file(rd_path, cap->buf.rd.data, cap->buf.rd.len, false);
	if (ret == 0)
		ret = write_file(session_path, cap->buf.session.data, cap->buf.session.len, false);
	if (ret < 0)
		HOST_FAIL(ret, "%s", strerror(-ret));
	return 0;
}

static char *append_line(char *lines, const char *line)
{
	size_t a = lines ? strlen(lines) : 0, b = strlen(line);
	char *out = realloc(lines, a + b + 1);
	if (!out)
		return lines;
	memcpy(out + a, line, b + 1);
	return out;
}

char *capture_fault_lines(struct host_queue *q, uint32_t seqno, uint64_t number, char *guest_lines)
{
	struct ferry_host *h = q->ctx->client->host;
	struct host_capture *cap = h->capture;
	if (!crash_dir_set(h) || !cap)
		return guest_lines;
	bool session_only = !h->fam->capture_rd; /* the family's submits: sessions, not .rd */
	char line[2 * PATH_MAX + 160];
	struct recent_submit *r = find_recent(cap, q, seqno);
	if (!r) {
		snprintf(line, sizeof(line), "capture: none (the submit is no longer remembered)\n");
		return append_line(guest_lines, line);
	}
	char rd_path[PATH_MAX], session_path[PATH_MAX];
	snprintf(rd_path, sizeof(rd_path), "%.4000s/ferry-report-%d-%llu.rd", h->cfg.crash_dir, (int)getpid(),
		 (unsigned long long)number);
	snprintf(session_path, sizeof(session_path), "%.4000s/ferry-report-%d-%llu.ferrycap", h->cfg.crash_dir,
		 (int)getpid(), (unsigned long long)number);
	char why[200] = "";
	int ret;
	const char *kind;
	if (r->rd_path || r->session_path) {
		/* Taken at submit time by the operator's capture: that is the faithful one. */
		kind = "snapshots at submit time";
		size_t rl = r->rd_path ? strlen(r->rd_path) : 0;
		if (rl > 3 && !strcmp(r->rd_path + rl - 3, ".gz") && strlen(rd_path) + 4 < sizeof(rd_path))
			strcat(rd_path, ".gz");
		if (r->rd_path && (ret = copy_file(r->rd_path, rd_path)) < 0)
			snprintf(why, sizeof(why), "%s: %s", r->rd_path, strerror(-ret));
		if (!r->rd_path)
			rd_path[0] = '\0';
		if (r->session_path && (ret = copy_file(r->session_path, session_path)) < 0)
			snprintf(why, sizeof(why), "%s: %s", r->session_path, strerror(-ret));
		if (!r->session_path)
			session_path[0] = '\0';
	} else {
		kind = "post-mortem: BO contents read when the fault was reported";
		if (session_only)
			rd_path[0] = '\0';
		write_post_mortem(cap, q, r, rd_path, session_path, why, sizeof(why));
	}
	if (why[0]) {
		host_log(h, FERRY_LOG_WARN, "capture for report %llu: %s", (unsigned long long)number, why);
		snprintf(line, sizeof(line), "capture: none (%s)\n", why);
	} else {
		snprintf(line, sizeof(line), "capture: %s%s%s (%s)\n", rd_path, rd_path[0] && session_path[0] ? " " : "",
			 session_path, kind);
	}
	return append_line(guest_lines, line);
}
