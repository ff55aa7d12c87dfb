/* libFuzzer target for libferry-host's request dispatch: each input is a client session (a GPU
 * choice and a sequence of frames or of structured requests) fed through the public API, on a host made for that input and
 * torn down after it, so ASan's leak check and an fd count see everything the session left. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ferry/host.h>
#include <ferry/hw/adreno_pm4.h>
#include <ferry/wire.h>

#include "fuzz_host_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		abort();
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Names what an fd leak left open, before the abort. */
static void list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[300], target[256];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
		}
	}
	closedir(d);
}

static uint64_t reply_buf[(FERRY_MAX_FRAME_SIZE + 8) / 8];

/* A guest writes its commands into the BOs it created; the input cannot, so every msm BO starts
 * as CP_NOPs (any aligned range of it is a valid stream) and every V3D BO with an empty render
 * list, and submits get past validation to the simulated GPU. */
static void fill_bo(int fd, uint64_t size, bool msm)
{
	size_t len = size < 0x10000 ? (size_t)size : 0x10000;
	if (len < 4)
		return;
	uint32_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	if (msm)
		for (size_t i = 0; i < len / 4; i++)
			p[i] = pm4_type7_hdr(CP_NOP, 0);
	else
		fh_v3d_rcl((uint8_t *)p, (uint32_t)len);
	munmap(p, len);
}

/* The pages of the newest BO the host created: a BO_IMPORT frame carries a dup of it, so the
 * import path runs for real (into the same context: the BO is there already; into another: a
 * second BO over the same kernel object). */
static int last_bo_fd = -1;

/* Whatever the host says must be a frame the guest can decode. */
static int on_send(void *cookie, const void *frame, size_t len, const int *fds, int nfds)
{
	const bool *msm = cookie;
	uint32_t plen;
	if (len < 4 || nfds < 0 || nfds > FERRY_MAX_FRAME_FDS)
		abort();
	memcpy(&plen, frame, 4);
	if (plen != len - 4 || plen > FERRY_MAX_FRAME_SIZE)
		abort();
	memcpy(reply_buf, (const uint8_t *)frame + 4, plen);
	struct ferry_msg m;
	const char *why = NULL;
	if (ferry_wire_decode(reply_buf, plen, &m, &why) != 0)
		abort();
	if (getenv("FERRY_FUZZ_VERBOSE")) /* to check what the seeds reach */
		fprintf(stderr, "reply seq %u kind %d iova 0x%llx%s%s\n", m.seq, (int)m.kind,
			m.kind == FERRY_MSG_BO_CREATED ? (unsigned long long)m.u.bo_created.iova : 0ull, m.kind == FERRY_MSG_ERROR ? ": " : "",
			m.kind == FERRY_MSG_ERROR && m.u.error.message ? m.u.error.message : "");
	if (m.kind == FERRY_MSG_BO_CREATED && nfds == 1) {
		fill_bo(fds[0], m.u.bo_created.size, *msm);
		if (last_bo_fd >= 0)
			close(last_bo_fd);
		last_bo_fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 0);
	}
	return 0;
}

static void quiet(void *cookie, int level, const char *msg)
{
	(void)cookie;
	(void)level;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t frame[(FERRY_MAX_FRAME_SIZE + 8) / 8];
	if (size < 1)
		return 0;
	/* Counted per input: libFuzzer itself opens fds between inputs (the symbolizer's pipes). */
	int fds_before = count_fds();

	unsigned gpu = data[0] % FH_NR_GPUS;
	bool msm = gpu == 0;
	struct ferry_host_config cfg = {
		.gpu = fh_gpus[gpu], .log = quiet, .log_level = FERRY_LOG_ERROR,
		.hangcheck_ms = 100, .fence_timeout_ms = -1,
	};
	struct ferry_host *host = NULL;
	if (ferry_host_create(&cfg, &host) != 0)
		abort();
	static const struct ferry_host_client_ops ops = { .send = on_send };
	struct ferry_host_client *client = ferry_host_client_new(host, &ops, &msm, "fuzz");
	if (!client)
		abort();

	size_t pos = 1;
	bool structured = data[0] & FH_STRUCTURED;
	static struct fh_record rec;
	for (unsigned i = 0; i < FH_MAX_FRAMES; i++) {
		const uint8_t *payload;
		size_t len;
		struct ferry_buf enc;
		ferry_buf_init(&enc);
		if (structured) {
			if (!fh_next_record(data, size, &pos, &rec))
				break;
			if (ferry_wire_encode(&rec.m, &enc) != 0) {
				ferry_buf_free(&enc);
				continue; /* libferry would not send it either */
			}
			payload = enc.data + FERRY_FRAME_HDR_SIZE;
			len = enc.len - FERRY_FRAME_HDR_SIZE;
		} else if (!fh_next_frame(data, size, &pos, &payload, &len)) {
			break;
		}
		/* The host gets frames in an 8-byte aligned buffer, as an embedder's reader gives them. */
		memcpy(frame, payload, len);
		ferry_buf_free(&enc);
		/* The host takes the frame's fds (and closes them): each import gets its own dup. */
		int fds[1];
		int nfds = 0;
		struct ferry_msg dm;
		if (last_bo_fd >= 0 && ferry_wire_decode(frame, len, &dm, NULL) == 0 && dm.kind == FERRY_MSG_BO_IMPORT) {
			fds[0] = fcntl(last_bo_fd, F_DUPFD_CLOEXEC, 0);
			nfds = fds[0] >= 0;
		}
		if (ferry_host_client_handle(client, frame, len, nfds ? fds : NULL, nfds) < 0)
			break; /* the embedder would disconnect this client */
		ferry_host_dispatch(host);
	}
	ferry_host_dispatch(host);
	ferry_host_client_free(client);
	ferry_host_destroy(host);
	if (last_bo_fd >= 0)
		close(last_bo_fd);
	last_bo_fd = -1;
	if (count_fds() != fds_before) {
		fprintf(stderr, "fuzz_host: %d fds open after the host was destroyed, %d before\n", count_fds(), fds_before);
		list_fds();
		abort(); /* an fd outlived the host */
	}
	return 0;
}
