/* Fault and hang reports, one composer for every family: the family's reading of the kernel's
 * report (msm/msm_fault.c, v3d/v3d_core.c) behind a short ferry header (who, which submit, the
 * ESTIMATED CRASH LOCATION line in crashdec style) and the capture lines, sent whole to the guest as
 * FAULT_REPORT, summarized in one warn line of the log (the full text at info), kept in memory
 * (the last cfg.max_fault_reports) and optionally written to cfg.crash_dir; the context is then
 * lost, and later requests on it say why. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_log.h"
#include "host_client.h"
#include "host_context.h"
#include "fault_log.h"
#include "trace_host.h"
#include "host_capture.h"

#define FAULT_LOG_DEFAULT_KEEP 16u

struct fault_log {
	char **texts;    /* ring of cap reports, oldest at head */
	uint64_t *numbers;
	unsigned cap, head, count;
	uint64_t next_number;
};

static struct fault_log *fault_log_get(struct ferry_host *h)
{
	if (h->fault_log)
		return h->fault_log;
	struct fault_log *fl = calloc(1, sizeof(*fl));
	if (!fl)
		return NULL;
	fl->cap = h->cfg.max_fault_reports ? h->cfg.max_fault_reports : FAULT_LOG_DEFAULT_KEEP;
	if (fl->cap > 1024)
		fl->cap = 1024;
	fl->texts = calloc(fl->cap, sizeof(*fl->texts));
	fl->numbers = calloc(fl->cap, sizeof(*fl->numbers));
	if (!fl->texts || !fl->numbers) {
		free(fl->texts);
		free(fl->numbers);
		free(fl);
		return NULL;
	}
	h->fault_log = fl;
	return fl;
}

void fault_log_free(struct ferry_host *h)
{
	struct fault_log *fl = h->fault_log;
	if (!fl)
		return;
	for (unsigned i = 0; i < fl->cap; i++)
		free(fl->texts[i]);
	free(fl->texts);
	free(fl->numbers);
	free(fl);
	h->fault_log = NULL;
}

/* Keeps text (taking ownership), dropping the oldest report when full. */
static void fault_log_keep(struct fault_log *fl, uint64_t number, char *text)
{
	unsigned slot = (fl->head + fl->count) % fl->cap;
	if (fl->count == fl->cap) {
		slot = fl->head;
		free(fl->texts[slot]);
		fl->head = (fl->head + 1) % fl->cap;
	} else {
		fl->count++;
	}
	fl->texts[slot] = text;
	fl->numbers[slot] = number;
}

unsigned ferry_host_nr_fault_reports(const struct ferry_host *h)
{
	return h->fault_log ? h->fault_log->count : 0;
}

const char *ferry_host_fault_report(const struct ferry_host *h, unsigned index, uint64_t *number)
{
	const struct fault_log *fl = h->fault_log;
	if (!fl || index >= fl->count)
		return NULL;
	unsigned slot = (fl->head + index) % fl->cap;
	if (number)
		*number = fl->numbers[slot];
	return fl->texts[slot];
}

const char *ctx_lost_reason(const struct host_ctx *ctx)
{
	return ctx->lost_why[0] ? ctx->lost_why : "context lost after a GPU fault or hang";
}

/* The host's header and the kernel's dump in one string of at most FERRY_MAX_REPORT_TEXT
 * bytes (the dump is cut at a line end if need be). NULL on ENOMEM. */
static char *compose(const struct host_queue *q, uint32_t seqno, uint64_t number, const struct host_fault *f,
		     const char *guest_lines)
{
	const struct host_ctx *ctx = q->ctx;
	const char *kernel_text = f->kernel_text;
	char head[1024];
	int n = snprintf(head, sizeof(head),
			 "ferry-report: %llu\nclient: %s\ncontext: %u\nqueue: %u\nseqno: %u\nevent: GPU %s\n"
			 "fence-status: %d\nESTIMATED CRASH LOCATION: %s\n%s",
			 (unsigned long long)number, ctx->client->peer, ctx->id, q->id, seqno, f->kind, f->status,
			 f->where, f->address_line);
	if (n < 0 || (size_t)n >= sizeof(head))
		n = (int)strlen(head);
	size_t glen = guest_lines ? strlen(guest_lines) : 0;
	if (glen > FERRY_MAX_REPORT_TEXT / 2)
		glen = 0; /* cannot happen: a few dozen lines */
	static const char cut_note[] = "# ... report truncated to FERRY_MAX_REPORT_TEXT\n";
	size_t klen = strlen(kernel_text);
	size_t room = FERRY_MAX_REPORT_TEXT - (size_t)n - glen;
	bool cut = false;
	if (klen > room) {
		cut = true;
		klen = room - (sizeof(cut_note) - 1);
		while (klen && kernel_text[klen - 1] != '\n')
			klen--;
	}
	char *text = malloc((size_t)n + glen + klen + sizeof(cut_note));
	if (!text)
		return NULL;
	memcpy(text, head, (size_t)n);
	if (glen)
		memcpy(text + n, guest_lines, glen);
	memcpy(text + n + glen, kernel_text, klen);
	text[(size_t)n + glen + klen] = '\0';
	if (cut)
		strcat(text, cut_note);
	return text;
}

/* <crash_dir>/ferry-report-<pid>-<number>.txt, mode 0600, never following a planted link. */
void fault_log_write_crash_file(struct ferry_host *h, uint64_t number, const char *text, char *path, size_t len)
{
	path[0] = '\0';
	if (!h->cfg.crash_dir || !h->cfg.crash_dir[0])
		return;
	int w = snprintf(path, len, "%s/ferry-report-%d-%llu.txt", h->cfg.crash_dir, (int)getpid(),
			 (unsigned long long)number);
	if (w < 0 || (size_t)w >= len) {
		host_log(h, FERRY_LOG_WARN, "crash dir path too long: report %llu not written",
			 (unsigned long long)number);
		path[0] = '\0';
		return;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		host_log(h, FERRY_LOG_WARN, "cannot write %s: %s", path, strerror(errno));
		path[0] = '\0';
		return;
	}
	size_t left = strlen(text);
	const char *p = text;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			host_log(h, FERRY_LOG_WARN, "writing %s: %s", path, n < 0 ? strerror(errno) : "short write");
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	close(fd);
}

/* The whole report at info level, one log message per line (log lines are bounded). */
void fault_log_full(struct ferry_host *h, uint64_t number, const char *text)
{
	if (h->cfg.log_level < FERRY_LOG_INFO)
		return;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		int n = end ? (int)(end - line) : (int)strlen(line);
		host_log(h, FERRY_LOG_INFO, "report %llu| %.*s", (unsigned long long)number, n, line);
		line += n + (end ? 1 : 0);
	}
}

int32_t fault_log_report(struct host_queue *q, uint32_t seqno, uint64_t number, struct host_fault *f)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host *h = ctx->client->host;
	trace_queue_event(q, TRACE_FAULT, seqno, 0);
	/* The submit's capture next to the report (crash dir set), below the family's lines. */
	char *guest_lines = capture_fault_lines(q, seqno, number, f->guest_lines);
	f->guest_lines = NULL;
	char *text = compose(q, seqno, number, f, guest_lines);
	free(guest_lines);

	struct ferry_msg ev = { .kind = FERRY_MSG_FAULT_REPORT, .seq = 0 };
	ev.u.fault_report = f->wire;
	ev.u.fault_report.ctx_id = ctx->id;
	ev.u.fault_report.queue_id = q->id;
	ev.u.fault_report.seqno = seqno;
	ev.u.fault_report.text = text ? text : "";
	client_send(ctx->client, &ev, NULL, 0);

	char path[512] = "";
	if (text)
		fault_log_write_crash_file(h, number, text, path, sizeof(path));
	host_log(h, FERRY_LOG_WARN, "%s: context %u queue %u seqno %u: GPU %s%s; ESTIMATED CRASH LOCATION: %s; report %llu%s%s",
		 ctx->client->peer, ctx->id, q->id, seqno, f->kind, f->at, f->where, (unsigned long long)number,
		 path[0] ? " in " : "", path);
	if (text)
		fault_log_full(h, number, text);

	if (f->where_in_parens)
		snprintf(ctx->lost_why, sizeof(ctx->lost_why), "context %u lost after a GPU %s%s (%s; queue %u seqno %u)",
			 ctx->id, f->kind, f->at, f->where, q->id, seqno);
	else
		snprintf(ctx->lost_why, sizeof(ctx->lost_why), "context %u lost after a GPU %s%s at %s (queue %u seqno %u)",
			 ctx->id, f->kind, f->at, f->where, q->id, seqno);
	fault_log_keep_text(h, number, text);
	/* Lost: nothing after the fault is promised, and a fence page holds one error per queue, so
	 * later fences fail as one tail (a second fault among them does not hide this one's error),
	 * with -EIO: what the guest reads for a lost context's unsignaled fence, where they stay. */
	timeline_fail_after(&q->tl, seqno, -EIO);
	h->stats.faults++;
	if (f->wire.flags & FERRY_FAULT_HANG)
		h->stats.hangs++;
	ctx_mark_lost(ctx);
	return f->status;
}

void fault_log_unplaced(struct host_queue *q, uint32_t seqno, uint32_t more)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host *h = ctx->client->host;
	/* A queue runs in order, so the fault is not before seqno; where after it, nobody can say.
	 * The failing tail the report began keeps it from reading as success. */
	if (more)
		host_log(h, FERRY_LOG_WARN,
			 "%s: context %u queue %u: %u more fault%s since the host last looked, which the kernel "
			 "kept no crash state for (it keeps one until read): every fence after seqno %u fails",
			 ctx->client->peer, ctx->id, q->id, more, more == 1 ? "" : "s", seqno);
	else /* the fault's own report is the warning: this says what it means for the rest */
		host_log(h, FERRY_LOG_INFO,
			 "%s: context %u queue %u: the kernel's crash state does not name the faulting submit, "
			 "so it may be after seqno %u: every later fence of the queue fails too",
			 ctx->client->peer, ctx->id, q->id, seqno);
	h->stats.faults += more;
}

uint64_t fault_log_next_number(struct ferry_host *h)
{
	struct fault_log *fl = fault_log_get(h);
	return fl ? ++fl->next_number : 0;
}

void fault_log_keep_text(struct ferry_host *h, uint64_t number, char *text)
{
	struct fault_log *fl = fault_log_get(h);
	if (fl && text)
		fault_log_keep(fl, number, text);
	else
		free(text);
}
