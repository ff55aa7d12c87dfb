/* `ferry replay FILE`: runs a capture (.rd or ferry session, gzip'd or not) again — on a private
 * ferryd with the simulated GPU it starts, or on --server — and prints each submit's fence result
 * and fault report, optionally dumping every BO after each submit. Exit status: 0 replayed
 * (faults included: reproducing them is the point), 1 unreadable / malformed capture or a request
 * ferryd refused, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "debug/rd_file.h"
#include "ferry/session_file.h"
#include "ferryd_spawn.h"
#include "replay.h"
#include "subcommands.h"

#define REPLAY_MAX_FILE (1ull << 30)

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry replay FILE [options]\n"
		   "Replay an .rd or ferry session capture and print each submit's result.\n\n"
		   "  --first N          run submits from N on (0-based; buffers are still placed for all)\n"
		   "  --last M           run submits up to M\n"
		   "  --override N=FILE  submit N runs FILE (raw PM4 dwords) as its only command buffer\n"
		   "  --dump-bo DIR      after each submit, write every BO to DIR/sNNNN-cC-bB-0xIOVA.bin\n"
		   "  --server URI       replay on a running ferryd, unix:PATH or tcp:HOST:PORT (another\n"
		   "                     machine's; default: start a private one)\n"
		   "  --gpu MODEL        the private ferryd's GPU (default: what the capture says)\n"
		   "  --policy P         validated or passthrough. .rd: the context's policy (default\n"
		   "                     passthrough on the private ferryd, as Mesa's replay runs on the\n"
		   "                     kernel; validated with --server). Session: every context's,\n"
		   "                     instead of the policy it was captured with\n"
		   "  --ferryd PATH      the ferryd binary (default $FERRYD, then next to ferry)\n");
}

static int read_file(const char *path, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ferry replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > REPLAY_MAX_FILE) {
		fprintf(stderr, "ferry replay: %s: not a regular file of at most 1 GiB\n", path);
		close(fd);
		return -1;
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
	if (!data || got != (size_t)st.st_size) {
		fprintf(stderr, "ferry replay: %s: %s\n", path, data ? "short read" : "out of memory");
		free(data);
		return -1;
	}
	*out = data;
	*len = got;
	return 0;
}

static const char *status_name(int32_t st)
{
	switch (st) {
	case 0: return "ok";
	case -EIO: return "fault (EIO)";
	case -ETIMEDOUT: return "hang (ETIMEDOUT)";
	case -ECANCELED: return "cancelled (ECANCELED)";
	default: return strerror(-st);
	}
}

static void print_fault(const struct rc_fault *f)
{
	const struct ferry_fault_report *r = &f->r;
	printf("  fault: ctx %u queue %u seqno %u %s iova 0x%016llx ib 0x%016llx dword %u level %u opcode 0x%x\n",
	       r->ctx_id, r->queue_id, r->seqno, (r->flags & FERRY_FAULT_HANG) ? "hang" : (r->flags & FERRY_FAULT_WRITE) ? "write" : "read",
	       (unsigned long long)r->iova, (unsigned long long)r->ib_iova, r->ib_dword, r->ib_level, r->opcode);
	for (const char *line = f->text; line && *line;) {
		const char *end = strchr(line, '\n');
		int n = end ? (int)(end - line) : (int)strlen(line);
		printf("  | %.*s\n", n, line);
		line += n + (end ? 1 : 0);
	}
}

static void dump_bos(struct replay *rp, uint32_t index)
{
	for (uint32_t i = 0; i < rp->conn.nr_bos; i++) {
		struct rc_bo *b = &rp->conn.bos[i];
		if (!b->live)
			continue;
		/* Over tcp the GPU's bytes come back only for BOs mirrored. */
		if (rc_bo_mirror(&rp->conn, b) < 0) {
			fprintf(stderr, "ferry replay: --dump-bo: %s\n", rp->conn.error);
			continue;
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/s%04u-c%u-b%u-0x%llx.bin", rp->dump_dir, index, b->ctx_id, b->bo_id,
			 (unsigned long long)b->iova);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		size_t done = 0;
		while (fd >= 0 && done < b->size) {
			ssize_t n = write(fd, b->map + done, b->size - done);
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		if (fd < 0 || done != b->size)
			fprintf(stderr, "ferry replay: --dump-bo %s: %s\n", path, fd < 0 ? strerror(errno) : "short write");
		if (fd >= 0)
			close(fd);
	}
}

static uint32_t next_seqno(struct replay *rp, uint32_t ctx, uint32_t queue)
{
	for (uint32_t i = 0; i < rp->nr_seqnos; i++)
		if (rp->seqnos[i].ctx_id == ctx && rp->seqnos[i].queue_id == queue)
			return ++rp->seqnos[i].seqno;
	if (rp->nr_seqnos == REPLAY_MAX_QUEUES)
		return 0;
	rp->seqnos[rp->nr_seqnos].ctx_id = ctx;
	rp->seqnos[rp->nr_seqnos].queue_id = queue;
	rp->seqnos[rp->nr_seqnos++].seqno = 1;
	return 1;
}

static struct replay_override *override_of(struct replay *rp, uint32_t index)
{
	for (uint32_t i = 0; i < rp->nr_overrides; i++)
		if (rp->overrides[i].submit == index)
			return &rp->overrides[i];
	return NULL;
}

/* The override's commands in a BO of their own, listed after the submit's. */
static int apply_override(struct replay *rp, struct ferry_msm_submit *s, const struct replay_override *ov,
			  struct ferry_msm_submit_bo **bos, struct ferry_msm_submit_cmd *cmd)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = s->ctx_id, .bo_id = 0x7fff0000u + ov->submit,
						  .size = ov->len, .flags = MSM_BO_WC };
	struct rc_bo *old = rc_find_bo(&rp->conn, s->ctx_id, m.u.bo_create.bo_id);
	if (old)
		rc_close_bo(&rp->conn, old);
	if (rc_request(&rp->conn, &m) < 0) {
		fprintf(stderr, "ferry replay: --override %u: %s\n", ov->submit, rp->conn.error);
		return -1;
	}
	struct rc_bo *bo = rc_find_bo(&rp->conn, s->ctx_id, m.u.bo_create.bo_id);
	if (!bo || rc_bo_mirror(&rp->conn, bo) < 0) {
		fprintf(stderr, "ferry replay: --override %u: %s\n", ov->submit, bo ? rp->conn.error : "no BO");
		return -1;
	}
	memcpy(bo->map, ov->data, ov->len);
	*bos = calloc((size_t)s->nr_bos + 1, sizeof(**bos));
	if (!*bos)
		return -1;
	if (s->nr_bos)
		memcpy(*bos, s->bos, s->nr_bos * sizeof(**bos));
	(*bos)[s->nr_bos] = (struct ferry_msm_submit_bo){ .bo_id = bo->bo_id, .flags = MSM_SUBMIT_BO_READ };
	*cmd = (struct ferry_msm_submit_cmd){ .type = MSM_SUBMIT_CMD_BUF, .bo_index = s->nr_bos, .offset = 0,
					      .size = (uint32_t)ov->len };
	s->bos = *bos;
	s->nr_bos++;
	s->cmds = cmd;
	s->nr_cmds = 1;
	s->relocs = NULL; /* they patched the replaced stream */
	s->nr_relocs = 0;
	return 0;
}

static int run_submit(struct replay *rp, uint32_t index, struct ferry_msg *m, uint32_t ctx_id, uint32_t queue_id,
		      uint32_t seqno, uint32_t orig, bool overridden);

int replay_submit(struct replay *rp, struct ferry_msm_submit *s)
{
	uint32_t index = rp->submit_index++;
	if ((long)index < rp->first || (rp->last >= 0 && (long)index > rp->last)) {
		printf("submit %u: skipped\n", index);
		return 0;
	}
	struct ferry_msm_submit_bo *bos = NULL;
	struct ferry_msm_submit_cmd cmd;
	const struct replay_override *ov = override_of(rp, index);
	if (ov && apply_override(rp, s, ov, &bos, &cmd) < 0)
		return -1;
	uint32_t orig = s->seqno;
	s->seqno = next_seqno(rp, s->ctx_id, s->queue_id);
	s->nr_in_fences = 0; /* the replay runs in order, one submit at a time */
	s->in_fences = NULL;
	s->flags &= FERRY_SUBMIT_FLAGS;
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = *s;
	int ret = run_submit(rp, index, &m, s->ctx_id, s->queue_id, s->seqno, orig, ov != NULL);
	free(bos);
	return ret;
}

int replay_submit_v3d(struct replay *rp, struct ferry_msg *m)
{
	uint32_t index = rp->submit_index++;
	if ((long)index < rp->first || (rp->last >= 0 && (long)index > rp->last)) {
		printf("submit %u: skipped\n", index);
		return 0;
	}
	if (override_of(rp, index)) {
		fprintf(stderr, "ferry replay: --override %u: a V3D submit (overrides take PM4)\n", index);
		return -1;
	}
	/* The three kinds share their leading fields and their fence arrays' meaning. */
	uint32_t *ctx, *queue, *seqno, *flags, *nr_in;
	const struct ferry_fence_ref **in;
	switch (m->kind) {
	case FERRY_MSG_V3D_SUBMIT_CL: {
		struct ferry_v3d_submit_cl *s = &m->u.v3d_submit_cl;
		ctx = &s->ctx_id, queue = &s->queue_id, seqno = &s->seqno, flags = &s->flags;
		nr_in = &s->nr_in_fences, in = &s->in_fences;
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_TFU: {
		struct ferry_v3d_submit_tfu *s = &m->u.v3d_submit_tfu;
		ctx = &s->ctx_id, queue = &s->queue_id, seqno = &s->seqno, flags = &s->flags;
		nr_in = &s->nr_in_fences, in = &s->in_fences;
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CSD: {
		struct ferry_v3d_submit_csd *s = &m->u.v3d_submit_csd;
		ctx = &s->ctx_id, queue = &s->queue_id, seqno = &s->seqno, flags = &s->flags;
		nr_in = &s->nr_in_fences, in = &s->in_fences;
		break;
	}
	default:
		return 0;
	}
	uint32_t orig = *seqno;
	*seqno = next_seqno(rp, *ctx, *queue);
	*nr_in = 0;
	*in = NULL;
	*flags &= m->kind == FERRY_MSG_V3D_SUBMIT_CL ? FERRY_V3D_SUBMIT_CL_FLAGS : FERRY_SUBMIT_FLAGS;
	return run_submit(rp, index, m, *ctx, *queue, *seqno, orig, false);
}

static int run_submit(struct replay *rp, uint32_t index, struct ferry_msg *m, uint32_t ctx_id, uint32_t queue_id,
		      uint32_t seqno, uint32_t orig, bool overridden)
{
	rp->conn.fault.have = false;
	int ret = rc_request(&rp->conn, m);
	if (ret < 0) {
		printf("submit %u: ctx %u queue %u seqno %u (captured %u): refused: %s\n", index, ctx_id, queue_id,
		       seqno, orig, rp->conn.error);
		rp->refused++;
		return 0; /* later submits may still run: the report says which failed */
	}
	int32_t status = 0;
	if (rc_wait(&rp->conn, ctx_id, queue_id, seqno, &status) < 0) {
		fprintf(stderr, "ferry replay: submit %u: wait: %s\n", index, rp->conn.error);
		return -1;
	}
	rp->ran++;
	printf("submit %u: ctx %u queue %u seqno %u (captured %u)%s: fence %d %s\n", index, ctx_id, queue_id,
	       seqno, orig, overridden ? " overridden" : "", status, status_name(status));
	if (rp->conn.fault.have) {
		rp->faults++;
		print_fault(&rp->conn.fault);
		rp->conn.fault.have = false;
	}
	if (rp->dump_dir)
		dump_bos(rp, index);
	fflush(stdout);
	return 0;
}

static int parse_override(const char *arg, struct replay *rp)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(arg, &end, 10);
	if (end == arg || *end != '=' || errno || n > UINT32_MAX || !end[1]) {
		fprintf(stderr, "ferry replay: --override wants N=FILE, not '%s'\n", arg);
		return -1;
	}
	uint8_t *data;
	size_t len;
	if (read_file(end + 1, &data, &len) < 0)
		return -1;
	if (len == 0 || len % 4 || len > 64u << 20) {
		fprintf(stderr, "ferry replay: --override %s: %zu bytes is not a whole number of dwords (1..64 MiB)\n",
			end + 1, len);
		free(data);
		return -1;
	}
	struct replay_override *nv = realloc(rp->overrides, (rp->nr_overrides + 1) * sizeof(*nv));
	if (!nv) {
		free(data);
		return -1;
	}
	rp->overrides = nv;
	rp->overrides[rp->nr_overrides++] = (struct replay_override){ .submit = (uint32_t)n, .data = data, .len = len };
	return 0;
}

static bool parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 0)
		return false;
	*out = v;
	return true;
}

int cmd_replay(int argc, char **argv)
{
	enum { OPT_FIRST = 256, OPT_LAST, OPT_OVERRIDE, OPT_SERVER, OPT_DUMP, OPT_GPU, OPT_FERRYD, OPT_HELP, OPT_POLICY };
	static const struct option opts[] = {
		{ "first", required_argument, NULL, OPT_FIRST }, { "last", required_argument, NULL, OPT_LAST },
		{ "override", required_argument, NULL, OPT_OVERRIDE }, { "server", required_argument, NULL, OPT_SERVER },
		{ "dump-bo", required_argument, NULL, OPT_DUMP }, { "gpu", required_argument, NULL, OPT_GPU },
		{ "ferryd", required_argument, NULL, OPT_FERRYD }, { "help", no_argument, NULL, OPT_HELP },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ NULL, 0, NULL, 0 },
	};
	struct replay rp = { .first = 0, .last = -1 };
	const char *server = NULL, *gpu = NULL, *ferryd_path = NULL, *policy = NULL;
	int status = 2, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FIRST:
		case OPT_LAST:
			if (!parse_long(optarg, c == OPT_FIRST ? &rp.first : &rp.last)) {
				fprintf(stderr, "ferry replay: bad submit number '%s'\n", optarg);
				goto out;
			}
			break;
		case OPT_OVERRIDE:
			if (parse_override(optarg, &rp) < 0) {
				status = 1;
				goto out;
			}
			break;
		case OPT_SERVER: server = optarg; break;
		case OPT_DUMP: rp.dump_dir = optarg; break;
		case OPT_GPU: gpu = optarg; break;
		case OPT_FERRYD: ferryd_path = optarg; break;
		case OPT_POLICY:
			if (strcmp(optarg, "validated") && strcmp(optarg, "passthrough")) {
				fprintf(stderr, "ferry replay: --policy is validated or passthrough\n");
				goto out;
			}
			policy = optarg;
			break;
		case OPT_HELP:
		case 'h':
			usage(stdout);
			status = 0;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		goto out;
	}
	status = 1;
	rp.path = argv[optind];
	rp.session_policy = policy != NULL;
	if (!policy)
		policy = server ? "validated" : "passthrough";
	rp.rd_policy = !strcmp(policy, "passthrough") ? FERRY_POLICY_PASSTHROUGH : FERRY_POLICY_VALIDATED;
	uint8_t *raw = NULL, *data = NULL;
	size_t raw_len, len;
	if (read_file(rp.path, &raw, &raw_len) < 0)
		goto out;
	data = raw;
	len = raw_len;
	if (rd_is_gzip(raw, raw_len)) {
		char err[200];
		if (rd_gunzip(raw, raw_len, 4ull << 30, &data, &len, err, sizeof(err)) < 0) {
			fprintf(stderr, "ferry replay: %s: %s\n", rp.path, err);
			free(raw);
			goto out;
		}
		free(raw);
		raw = data;
	}
	bool session = session_detect(data, len);
	char file_gpu[17] = "";
	uint32_t family = FERRY_FAMILY_MSM, gpu_id = 0;
	if (session) {
		if (replay_session_check(rp.path, data, len, file_gpu, &family) < 0)
			goto out_free;
		if (family != FERRY_FAMILY_MSM && family != FERRY_FAMILY_V3D) {
			fprintf(stderr, "ferry replay: %s: a session of unknown GPU family %u\n", rp.path, family);
			goto out_free;
		}
		rp.v3d.ver = strstr(file_gpu, "7.1") ? 71 : 42;
	} else if (rd_detect(data, len)) {
		if (replay_rd_check(rp.path, data, len, &gpu_id) < 0)
			goto out_free;
		snprintf(file_gpu, sizeof(file_gpu), "%s", rd_gpu_name(gpu_id) ? rd_gpu_name(gpu_id) : "");
	} else {
		fprintf(stderr, "ferry replay: %s: neither an .rd capture nor a ferry session capture\n", rp.path);
		goto out_free;
	}
	if (!gpu)
		gpu = file_gpu[0] ? file_gpu : "a630";
	if (rp.dump_dir && mkdir(rp.dump_dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "ferry replay: --dump-bo %s: %s\n", rp.dump_dir, strerror(errno));
		goto out_free;
	}

	struct ferryd_proc proc = { .pid = -1 };
	char uri[128];
	if (server) {
		snprintf(uri, sizeof(uri), "%s", server);
	} else {
		char bin[4096];
		if (ferryd_locate(ferryd_path, bin, sizeof(bin)) < 0) {
			fprintf(stderr, "ferry replay: no ferryd found (use --ferryd or --server)\n");
			goto out_free;
		}
		/* Its own private ferryd: the capture's passthrough contexts are allowed there. */
		const char *extra[] = { "--allow-passthrough", NULL };
		if (ferryd_spawn(bin, gpu, extra, true, 10000, &proc) < 0)
			goto out_free;
		snprintf(uri, sizeof(uri), "%s", proc.uri);
	}
	printf("replaying %s (%s, %s) on %s\n", rp.path, session ? "session" : ".rd", gpu, server ? server : "a private ferryd");
	if (rc_connect(&rp.conn, uri) == 0) {
		int ret = session ? replay_session(&rp, data, len) : replay_rd(&rp, data, len);
		printf("replayed %u submits: %u ran, %u refused, %u faulted\n", rp.submit_index, rp.ran, rp.refused,
		       rp.faults);
		status = ret < 0 || rp.refused ? 1 : 0;
	}
	rc_close(&rp.conn);
	rv3d_fini(&rp.v3d);
	if (proc.pid > 0) {
		int st = ferryd_stop(&proc, 5000);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "ferry replay: the private ferryd did not exit cleanly (wait status 0x%x)\n", st);
			status = 1;
		}
	}
out_free:
	free(raw);
out:
	for (uint32_t i = 0; i < rp.nr_overrides; i++)
		free(rp.overrides[i].data);
	free(rp.overrides);
	return status;
}
