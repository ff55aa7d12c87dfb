/* ferryd: serves libferry-host to many guests over unix and tcp sockets from one epoll loop — clients'
 * frames in, replies and events out, the host's poll fd and deadlines, and a clean shutdown on
 * SIGTERM/SIGINT. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "remote.h"
#include "server.h"
#include "service.h"
#include "conn_io.h"
#include "backend/device.h"

#ifndef FERRYD_DEFAULT_GPU
#define FERRYD_DEFAULT_GPU "a630"
#endif

/* epoll tags for the server's own fds; connections are tagged with their struct conn. */
static char tag_signal, tag_host;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ferryd [options]\n"
		"  --socket PATH        listen here (default $XDG_RUNTIME_DIR/ferry/ferryd.sock,\n"
		"                       else /tmp/ferry-$UID/ferryd.sock); same as --listen unix:PATH\n"
		"  --listen ADDR        listen on unix:PATH or tcp:HOST:PORT (repeatable; port 0 picks\n"
		"                       one, logged). Without --socket or a unix --listen, no unix socket\n"
		"                       is served unless no --listen was given at all\n"
		"  --tls-creds DIR      TLS for tcp: listeners (on by default): DIR holds ca-cert.pem,\n"
		"                       server-cert.pem, server-key.pem, optional ca-crl.pem (QEMU's\n"
		"                       x509 layout). Clients need a certificate signed by that CA, or\n"
		"                       a token (--auth-tokens)\n"
		"  --auth-tokens FILE   tokens a client without a certificate may send in its HELLO, one\n"
		"                       a line (16..256 printable characters; # comments)\n"
		"  --auth-timeout-ms N  a tcp: client must finish TLS and HELLO within N ms (default 10000)\n"
		"  --insecure           serve tcp: without TLS (plain text; tokens, if given, still checked)\n"
		"  --metrics ADDR       serve GET /metrics (Prometheus text) on unix:PATH or a loopback\n"
		"                       tcp:HOST:PORT (docs/service.md)\n"
		"  --metrics-allow-remote  let --metrics listen on a non-loopback address\n"
		"  --gpu GPU            a simulated GPU: ");
	for (const char *const *m = gpu_sim_models; *m; m++)
		fprintf(f, "%s%s", *m, m[1] ? "|" : "");
	fprintf(f, " (default %s),\n"
		"                       a render node /dev/dri/renderDNNN (msm or v3d), or auto (the\n"
		"                       first msm or v3d render node; see docs/real-board.md)\n"
		"  --v3d-tenancy MODE   exclusive|shared (default exclusive: one client holds the V3D\n"
		"                       at a time; shared is for trusted tenants only, see docs/security.md)\n"
		"  --log-level LEVEL    error|warn|info|debug (default warn)\n"
		"  -v                   one log level more verbose (repeatable)\n"
		"  --allow-passthrough  let clients ask for passthrough contexts\n"
		"  --sim-strict         simulated GPU: a job containing work the simulator does not\n"
		"                       execute (draws, dispatches, skipped copies) fails as a GPU\n"
		"                       error instead of being counted and warned about\n"
		"  --ready-fd N         write one byte to fd N once listening, then close it\n"
		"                       (under systemd: Type=notify and socket units, docs/service.md)\n"
		"  --hangcheck-ms N     a submit without progress for N ms is a GPU hang (default 500)\n"
		"  --fence-timeout-ms N log the sync-state dump when a fence is N ms overdue\n"
		"                       (default 3000; 0 = watchdog off)\n"
		"  --fence-dump-max-kib N  at most N KiB of lines per watchdog dump (default 64)\n"
		"  --fence-dump-interval-ms N  at most one watchdog dump per client per N ms\n"
		"                       (default 10000)\n"
		"  --fence-dump-host-interval-ms N  at most one watchdog dump per N ms in all\n"
		"                       (default 1000)\n"
		"  --crash-dir DIR      also write every fault/hang report to DIR (mode 0600)\n"
		"  --max-reports N      fault/hang reports kept in memory (default 16)\n"
		"  --control PATH       operator control socket (default: the socket path + .ctl;\n"
		"                       `ferry status` talks to it; 'none' = no control socket)\n"
		"  --trace-file PATH    record the per-queue trace from the start and write it to\n"
		"                       PATH as Chrome-trace JSON at shutdown (`ferry trace` too)\n"
		"  --capture-dir DIR    where `ferry capture` and the trigger write captures\n"
		"                       (default $XDG_RUNTIME_DIR/ferry/captures)\n"
		"  --capture-trigger PATH  a file holding N captures the next N submits, -1 until\n"
		"                       it holds 0 (polled every 100 ms)\n"
		"  --max-client-contexts N  contexts one client may hold (default 16)\n"
		"  --max-client-bos N   BOs one client may hold, across its contexts (default 16384)\n"
		"  --max-client-bo-mib N  total MiB of one client's BOs and submit rings (default 4096)\n"
		"  --max-client-shadow-mib N  shadow copies of validated command streams one client\n"
		"                       may hold (in flight + recycled): N MiB plus the ratio below\n"
		"                       times its BO bytes (default 64)\n"
		"  --max-client-shadow-ratio K  that ratio (default 2)\n"
		"  --max-client-fds N   fds ferryd may hold for one client: its contexts, BOs and shadow\n"
		"                       BOs, replies queued with their fds (default: a quarter of the\n"
		"                       fd limit, 64..65536)\n"
		"  --max-clients N      connections served at once; more are refused (default 256)\n"
		"  --max-connections-per-process N  connections one peer process may hold at once\n"
		"                       (default 32)\n"
		"  --fd-reserve N       fds kept free for connected clients: new connections are\n"
		"                       refused when fewer are left (default: 1/16 of the fd limit,\n"
		"                       32..4096)\n"
		"  --validate-slice N   PM4 dwords of a submit validated per client per loop pass; a\n"
		"                       longer submit goes on in later passes (default %u; 0 = whole\n"
		"                       submits at once, which lets one client stall the others)\n"
		"  --no-submit-ring     do not offer submit rings (guests send every frame on the\n"
		"                       socket; for debugging and comparison)\n"
		"  --ring-spin-us N     before sleeping, look at the submit rings for up to N us, so a\n"
		"                       guest submitting steadily needs no doorbell (default 0: no\n"
		"                       spin; costs CPU while guests are idle-but-connected)\n"
		"  --help, --version\n",
		FERRYD_DEFAULT_GPU, FERRYD_VALIDATE_SLICE_DWORDS);
}

static int parse_level(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static bool known_gpu(const char *gpu)
{
	return gpu_name_valid(gpu);
}

static int add_fd(int epfd, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Many clients each hold several fds (a context's, every BO's): use all the fds we may.
 * Returns the limit (0 when unknown). */
static unsigned long raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != rl.rlim_max) {
		rlim_t soft = rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			ferryd_log(FERRY_LOG_WARN, "cannot raise the fd limit: %s", strerror(errno));
			rl.rlim_cur = soft;
		}
	}
	ferryd_log(FERRY_LOG_INFO, "fd limit %llu", (unsigned long long)rl.rlim_cur);
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 30 ? 1ul << 30 : (unsigned long)rl.rlim_cur;
}

static unsigned long clamp_ul(unsigned long v, unsigned long lo, unsigned long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* --ring-spin-us: 0 = sleep at once. */
static unsigned ring_spin_us;

/* Before a sleep: records published meanwhile are taken without the guest's doorbell. */
static bool ring_spin(struct server *srv)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (ferry_host_rings_poll(srv->host))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 >= (long)ring_spin_us)
			return false;
	}
}

static void run(struct server *srv)
{
	struct epoll_event evs[64];
	while (!srv->stop) {
		int timeout = metrics_timeout_ms(srv, conn_timeout_ms(srv, capture_ctl_timeout_ms(srv,
					      control_timeout_ms(srv, ferry_host_next_timeout_ms(srv->host)))));
		if (srv->busy_conns || conn_mirror_pending(srv))
			timeout = 0;
		if (ring_spin_us && timeout != 0 && ring_spin(srv))
			timeout = 0;
		int n = epoll_wait(srv->epfd, evs, 64, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ferryd_log(FERRY_LOG_ERROR, "epoll_wait: %s", strerror(errno));
			break;
		}
		int64_t slice_ns = n > 0 ? FERRYD_PASS_NS / n : FERRYD_PASS_NS;
		if (slice_ns > FERRYD_CLIENT_SLICE_NS)
			slice_ns = FERRYD_CLIENT_SLICE_NS;
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if ((char *)tag >= (char *)srv->listeners &&
			    (char *)tag < (char *)(srv->listeners + srv->nr_listeners)) {
				conn_accept_all(srv, tag);
			} else if (tag == &tag_signal) {
				struct signalfd_siginfo si;
				if (read(srv->signal_fd, &si, sizeof(si)) == sizeof(si))
					ferryd_log(FERRY_LOG_INFO, "signal %u: shutting down", si.ssi_signo);
				srv->stop = true;
			} else if (tag == &srv->remote_epfd) {
				remote_events(srv->remote_epfd);
			} else if (tag != &tag_host && !control_event(srv, tag, evs[i].events) &&
				   !metrics_event(srv, tag, evs[i].events)) {
				conn_event(tag, evs[i].events, slice_ns);
			}
		}
		/* After everyone else's frames: long submits go on by one validation slice. */
		conn_resume_busy(srv);
		/* Always: retires work, answers due waits (the host fd or a deadline may be why we woke). */
		ferry_host_dispatch(srv->host);
		conn_reap_dead(srv);
		conn_trim(srv);
		control_expire(srv);
		metrics_expire(srv);
		capture_ctl_poll(srv);
	}
}

/* --listen / --metrics ADDR: unix:PATH or tcp:HOST:PORT, else said why. */
static bool check_addr(const char *opt, const char *arg, const char *virtio_hint)
{
	struct ferry_uri u;
	char why[200];
	if (ferry_uri_parse(arg, &u, why, sizeof(why)) == 0 && u.kind != FERRY_URI_VIRTIO)
		return true;
	if (u.kind == FERRY_URI_VIRTIO)
		fprintf(stderr, "ferryd: %s takes unix:PATH or tcp:HOST:PORT%s\n", opt, virtio_hint);
	else
		fprintf(stderr, "ferryd: %s %s\n", opt, why);
	return false;
}

static bool add_listen(const char **uris, unsigned *n, const char *uri)
{
	if (*n == FERRYD_MAX_LISTENERS) {
		fprintf(stderr, "ferryd: at most %d --listen addresses\n", FERRYD_MAX_LISTENERS);
		return false;
	}
	uris[(*n)++] = uri;
	return true;
}

int main(int argc, char **argv)
{
	enum { OPT_SOCKET = 256, OPT_GPU, OPT_LOG_LEVEL, OPT_HELP, OPT_VERSION, OPT_PASSTHROUGH, OPT_READY_FD,
	       OPT_HANGCHECK, OPT_FENCE_TIMEOUT, OPT_CRASH_DIR, OPT_MAX_REPORTS, OPT_CONTROL, OPT_V3D_TENANCY,
	       OPT_TRACE_FILE, OPT_CAPTURE_DIR, OPT_CAPTURE_TRIGGER, OPT_MAX_CLIENT_CONTEXTS, OPT_MAX_CLIENT_BOS,
	       OPT_MAX_CLIENT_BO_MIB, OPT_MAX_CLIENT_SHADOW_MIB, OPT_MAX_CLIENT_SHADOW_RATIO,
	       OPT_MAX_CLIENT_FDS, OPT_MAX_CLIENTS, OPT_FD_RESERVE, OPT_MAX_CONNS_PER_PROCESS,
	       OPT_FENCE_DUMP_MAX_KIB, OPT_FENCE_DUMP_INTERVAL, OPT_FENCE_DUMP_HOST_INTERVAL, OPT_VALIDATE_SLICE, OPT_SIM_STRICT,
	       OPT_LISTEN, OPT_INSECURE, OPT_METRICS, OPT_METRICS_ALLOW_REMOTE, OPT_TLS_CREDS, OPT_AUTH_TOKENS,
	       OPT_AUTH_TIMEOUT, OPT_NO_SUBMIT_RING, OPT_RING_SPIN_US };
	_Static_assert(OPT_CONTROL - OPT_HANGCHECK == DIAG_OPT_CONTROL, "diag options keep their order");
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "insecure", no_argument, NULL, OPT_INSECURE },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "metrics-allow-remote", no_argument, NULL, OPT_METRICS_ALLOW_REMOTE },
		{ "tls-creds", required_argument, NULL, OPT_TLS_CREDS },
		{ "auth-tokens", required_argument, NULL, OPT_AUTH_TOKENS },
		{ "auth-timeout-ms", required_argument, NULL, OPT_AUTH_TIMEOUT },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "allow-passthrough", no_argument, NULL, OPT_PASSTHROUGH },
		{ "sim-strict", no_argument, NULL, OPT_SIM_STRICT },
		{ "ready-fd", required_argument, NULL, OPT_READY_FD },
		{ "hangcheck-ms", required_argument, NULL, OPT_HANGCHECK },
		{ "fence-timeout-ms", required_argument, NULL, OPT_FENCE_TIMEOUT },
		{ "crash-dir", required_argument, NULL, OPT_CRASH_DIR },
		{ "max-reports", required_argument, NULL, OPT_MAX_REPORTS },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "v3d-tenancy", required_argument, NULL, OPT_V3D_TENANCY },
		{ "trace-file", required_argument, NULL, OPT_TRACE_FILE },
		{ "capture-dir", required_argument, NULL, OPT_CAPTURE_DIR },
		{ "capture-trigger", required_argument, NULL, OPT_CAPTURE_TRIGGER },
		{ "max-client-contexts", required_argument, NULL, OPT_MAX_CLIENT_CONTEXTS },
		{ "max-client-bos", required_argument, NULL, OPT_MAX_CLIENT_BOS },
		{ "max-client-bo-mib", required_argument, NULL, OPT_MAX_CLIENT_BO_MIB },
		{ "max-client-shadow-mib", required_argument, NULL, OPT_MAX_CLIENT_SHADOW_MIB },
		{ "max-client-shadow-ratio", required_argument, NULL, OPT_MAX_CLIENT_SHADOW_RATIO },
		{ "fence-dump-max-kib", required_argument, NULL, OPT_FENCE_DUMP_MAX_KIB },
		{ "fence-dump-interval-ms", required_argument, NULL, OPT_FENCE_DUMP_INTERVAL },
		{ "fence-dump-host-interval-ms", required_argument, NULL, OPT_FENCE_DUMP_HOST_INTERVAL },
		{ "max-client-fds", required_argument, NULL, OPT_MAX_CLIENT_FDS },
		{ "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
		{ "fd-reserve", required_argument, NULL, OPT_FD_RESERVE },
		{ "max-connections-per-process", required_argument, NULL, OPT_MAX_CONNS_PER_PROCESS },
		{ "validate-slice", required_argument, NULL, OPT_VALIDATE_SLICE },
		{ "no-submit-ring", no_argument, NULL, OPT_NO_SUBMIT_RING },
		{ "ring-spin-us", required_argument, NULL, OPT_RING_SPIN_US },
		{ NULL, 0, NULL, 0 },
	};
	char socket_path[108] = "";
	const char *gpu = FERRYD_DEFAULT_GPU;
	bool passthrough = false, sim_strict = false, no_submit_ring = false;
	bool v3d_shared = false;
	const char *trace_file = NULL;
	const char *capture_dir = NULL, *capture_trigger = NULL;
	int ready_fd = -1;
	const char *listen_uris[FERRYD_MAX_LISTENERS];
	unsigned nr_listen = 0;
	bool insecure = false;
	const char *metrics_uri = NULL;
	bool metrics_allow_remote = false;
	const char *tls_creds = NULL, *auth_tokens = NULL;
	unsigned auth_timeout_ms = 0;
	/* --max-client-contexts, -bos, -bo-mib, -shadow-mib, -shadow-ratio, -fds, --max-clients,
	 * --fd-reserve, --max-connections-per-process; 0 = the default */
	unsigned quota[9] = { 0 };
	uint32_t validate_slice = FERRYD_VALIDATE_SLICE_DWORDS;
	struct diag_options diag = { .hangcheck_ms = 500, .fence_timeout_ms = 3000, .max_reports = 16 };
	int c;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			if (strlen(optarg) >= sizeof(socket_path)) {
				fprintf(stderr, "ferryd: socket path too long\n");
				return 2;
			}
			snprintf(socket_path, sizeof(socket_path), "%s", optarg);
			if (!add_listen(listen_uris, &nr_listen, optarg))
				return 2;
			break;
		case OPT_LISTEN:
			if (!check_addr("--listen", optarg, " (virtio: is QEMU's, through the renderer library)") ||
			    !add_listen(listen_uris, &nr_listen, optarg))
				return 2;
			break;
		case OPT_INSECURE:
			insecure = true;
			break;
		case OPT_METRICS:
			if (!check_addr("--metrics", optarg, ""))
				return 2;
			metrics_uri = optarg;
			break;
		case OPT_METRICS_ALLOW_REMOTE:
			metrics_allow_remote = true;
			break;
		case OPT_TLS_CREDS:
			tls_creds = optarg;
			break;
		case OPT_AUTH_TOKENS:
			auth_tokens = optarg;
			break;
		case OPT_AUTH_TIMEOUT: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || errno || v == 0 || v > 3600000) {
				fprintf(stderr, "ferryd: bad --auth-timeout-ms '%s' (want 1..3600000)\n", optarg);
				return 2;
			}
			auth_timeout_ms = (unsigned)v;
			break;
		}
		case OPT_GPU:
			gpu = optarg;
			break;
		case OPT_LOG_LEVEL:
			ferryd_log_level = parse_level(optarg);
			if (ferryd_log_level < 0) {
				fprintf(stderr, "ferryd: unknown log level '%s'\n", optarg);
				return 2;
			}
			break;
		case 'v':
			if (ferryd_log_level < FERRY_LOG_DEBUG)
				ferryd_log_level++;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("ferryd %s\n", FERRY_VERSION);
			return 0;
		case OPT_SIM_STRICT:
			sim_strict = true;
			break;
		case OPT_PASSTHROUGH:
			passthrough = true;
			break;
		case OPT_TRACE_FILE:
			trace_file = optarg;
			break;
		case OPT_CAPTURE_DIR:
			capture_dir = optarg;
			break;
		case OPT_CAPTURE_TRIGGER:
			capture_trigger = optarg;
			break;
		case OPT_V3D_TENANCY:
			if (!strcmp(optarg, "shared")) {
				v3d_shared = true;
			} else if (!strcmp(optarg, "exclusive")) {
				v3d_shared = false;
			} else {
				fprintf(stderr, "ferryd: --v3d-tenancy must be exclusive or shared\n");
				return 2;
			}
			break;
		case OPT_READY_FD: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 65535) {
				fprintf(stderr, "ferryd: bad --ready-fd '%s'\n", optarg);
				return 2;
			}
			ready_fd = (int)v;
			break;
		}
		case OPT_MAX_CLIENT_CONTEXTS:
		case OPT_MAX_CLIENT_BOS:
		case OPT_MAX_CLIENT_BO_MIB:
		case OPT_MAX_CLIENT_SHADOW_MIB:
		case OPT_MAX_CLIENT_SHADOW_RATIO:
		case OPT_MAX_CLIENT_FDS:
		case OPT_MAX_CLIENTS:
		case OPT_FD_RESERVE:
		case OPT_MAX_CONNS_PER_PROCESS: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || errno || v == 0 || v > 0xffffffffUL) {
				static const char *const names[] = { "max-client-contexts", "max-client-bos",
								     "max-client-bo-mib", "max-client-shadow-mib",
								     "max-client-shadow-ratio", "max-client-fds",
								     "max-clients", "fd-reserve",
								     "max-connections-per-process" };
				fprintf(stderr, "ferryd: bad --%s '%s' (want 1..4294967295)\n",
					names[c - OPT_MAX_CLIENT_CONTEXTS], optarg);
				return 2;
			}
			quota[c - OPT_MAX_CLIENT_CONTEXTS] = (unsigned)v;
			break;
		}
		case OPT_VALIDATE_SLICE: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || errno || v > 0xffffffffUL) {
				fprintf(stderr, "ferryd: bad --validate-slice '%s' (want 0..4294967295)\n", optarg);
				return 2;
			}
			validate_slice = (uint32_t)v;
			break;
		}
		case OPT_NO_SUBMIT_RING:
			no_submit_ring = true;
			break;
		case OPT_RING_SPIN_US: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || errno || v > 1000000UL) {
				fprintf(stderr, "ferryd: bad --ring-spin-us '%s' (want 0..1000000)\n", optarg);
				return 2;
			}
			ring_spin_us = (unsigned)v;
			break;
		}
		case OPT_HANGCHECK:
		case OPT_FENCE_TIMEOUT:
		case OPT_CRASH_DIR:
		case OPT_MAX_REPORTS:
		case OPT_CONTROL:
			if (parse_diag_option(c - OPT_HANGCHECK, optarg, &diag) < 0)
				return 2;
			break;
		case OPT_FENCE_DUMP_MAX_KIB:
		case OPT_FENCE_DUMP_INTERVAL:
		case OPT_FENCE_DUMP_HOST_INTERVAL:
			if (parse_diag_option(DIAG_OPT_FENCE_DUMP_MAX_KIB + (c - OPT_FENCE_DUMP_MAX_KIB), optarg, &diag) < 0)
				return 2;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (!known_gpu(gpu)) {
		fprintf(stderr, "ferryd: unknown GPU '%s'\n", gpu);
		usage(stderr);
		return 2;
	}
	/* Sockets from the service manager: they count as --listen addresses given. */
	notify_init();
	struct activation act;
	if (activation_take(&act) < 0)
		return 1;
	if (act.nr_listeners + nr_listen > FERRYD_MAX_LISTENERS) {
		fprintf(stderr, "ferryd: at most %d client sockets, passed and --listen together\n", FERRYD_MAX_LISTENERS);
		activation_close(&act);
		return 2;
	}
	if (act.metrics_fd >= 0 && metrics_uri) {
		fprintf(stderr, "ferryd: --metrics and a socket named \"metrics\" from the service manager: one only\n");
		activation_close(&act);
		return 2;
	}
	/* socket_path is the first unix address (its control socket is <path>.ctl); without --socket
	 * or --listen the default path is served. With tcp: only, it still names the local control. */
	for (unsigned i = 0; i < act.nr_listeners && !socket_path[0]; i++)
		if (!act.listeners[i].remote && act.listeners[i].path[0])
			snprintf(socket_path, sizeof(socket_path), "%s", act.listeners[i].path);
	for (unsigned i = 0; i < nr_listen && !socket_path[0]; i++) {
		struct ferry_uri u;
		if (ferry_uri_parse(listen_uris[i], &u, NULL, 0) == 0 && u.kind == FERRY_URI_UNIX)
			snprintf(socket_path, sizeof(socket_path), "%s", u.path);
	}
	if (!socket_path[0] && ferryd_default_socket_path(socket_path, sizeof(socket_path)) < 0) {
		fprintf(stderr, "ferryd: default socket path too long; use --socket\n");
		activation_close(&act);
		return 2;
	}
	if (nr_listen == 0 && act.nr_listeners == 0)
		listen_uris[nr_listen++] = socket_path;
	if (insecure && tls_creds) {
		fprintf(stderr, "ferryd: --insecure (plain tcp:) and --tls-creds (TLS) contradict each other\n");
		activation_close(&act);
		return 2;
	}
	struct ferryd_auth *auth = NULL;
	if (ferryd_auth_load(tls_creds, auth_tokens, auth_timeout_ms, &auth) < 0) {
		activation_close(&act);
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	unsigned long fd_limit = raise_fd_limit();
	struct server srv = { .epfd = -1, .signal_fd = -1, .auth = auth, .remote_epfd = -1 };
	srv.max_clients = quota[6] ? quota[6] : FERRYD_DEFAULT_MAX_CLIENTS;
	srv.max_conns_per_process = quota[8] ? quota[8] : FERRYD_DEFAULT_MAX_CONNS_PER_PROCESS;
	srv.fd_limit = fd_limit;
	srv.fd_reserve = quota[7] ? quota[7] : clamp_ul(fd_limit / 16, 32, 4096);
	unsigned max_client_fds = quota[5] ? quota[5] : (unsigned)clamp_ul(fd_limit / 4, 64, 65536);
	if (fd_limit && srv.fd_reserve >= fd_limit)
		ferryd_log(FERRY_LOG_WARN, "--fd-reserve %lu is not below the fd limit %lu: every client will be refused",
			   srv.fd_reserve, fd_limit);
	conn_reserve_fd_open(&srv);
	int status = 1;
	struct ferry_host_config cfg = {
		.gpu = gpu,
		.allow_passthrough = passthrough,
		.v3d_shared_tenancy = v3d_shared,
		.log = ferryd_host_log_sink,
		.log_level = ferryd_log_level,
		.hangcheck_ms = diag.hangcheck_ms,
		.fence_timeout_ms = diag.fence_timeout_ms ? (int)diag.fence_timeout_ms : -1,
		.max_fault_reports = diag.max_reports,
		.fence_dump_max_kib = diag.fence_dump_max_kib,
		.fence_dump_interval_ms = diag.fence_dump_interval_ms,
		.fence_dump_host_interval_ms = diag.fence_dump_host_interval_ms,
		.crash_dir = diag.crash_dir,
		.max_client_contexts = quota[0],
		.max_client_bos = quota[1],
		.max_client_bo_mib = quota[2],
		.max_client_shadow_mib = quota[3],
		.max_client_shadow_ratio = quota[4],
		.max_client_fds = max_client_fds,
		.validate_slice_dwords = validate_slice,
		.sim_strict = sim_strict,
		.no_submit_ring = no_submit_ring,
	};
	int ret = ferry_host_create(&cfg, &srv.host);
	if (ret < 0) {
		ferryd_log(FERRY_LOG_ERROR, "cannot start the host: %s", strerror(-ret));
		if (srv.reserve_fd >= 0)
			close(srv.reserve_fd);
		activation_close(&act);
		notify_send("STATUS=cannot start the host: %s\nERRNO=%d\n", strerror(-ret), -ret);
		notify_fini();
		ferryd_auth_free(auth);
		return 1;
	}
	if (capture_ctl_init(&srv, capture_dir, capture_trigger) < 0)
		goto out;
	if (trace_file && ferry_host_trace_enable(srv.host, true) < 0) {
		ferryd_log(FERRY_LOG_ERROR, "--trace-file: out of memory for the trace ring");
		goto out;
	}
	/* The passed sockets first: the first unix one is the socket `status` names. */
	for (unsigned i = 0; i < act.nr_listeners; i++)
		srv.listeners[srv.nr_listeners++] = act.listeners[i];
	act.nr_listeners = 0;
	for (unsigned i = 0; i < srv.nr_listeners; i++)
		if (listener_secure(&srv, &srv.listeners[i], insecure) < 0)
			goto out_unlink;
	if (listeners_open(&srv, listen_uris, nr_listen, insecure) < 0)
		goto out_unlink;
	char control_path[108];
	if (!control_path_for(&diag, socket_path, control_path, sizeof(control_path)))
		goto out_unlink;
	srv.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	srv.epfd = epoll_create1(EPOLL_CLOEXEC);
	srv.remote_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (srv.signal_fd < 0 || srv.epfd < 0 || srv.remote_epfd < 0 || listeners_watch(&srv) < 0 ||
	    add_fd(srv.epfd, srv.remote_epfd, &srv.remote_epfd) < 0 ||
	    add_fd(srv.epfd, srv.signal_fd, &tag_signal) < 0 ||
	    add_fd(srv.epfd, ferry_host_poll_fd(srv.host), &tag_host) < 0) {
		ferryd_log(FERRY_LOG_ERROR, "event loop setup: %s", strerror(errno));
		goto out_unlink;
	}
	struct control_info cinfo = {
		.socket = socket_path,
		.hangcheck_ms = diag.hangcheck_ms,
		.last_fence_timeout_ms = diag.fence_timeout_ms ? diag.fence_timeout_ms : 3000,
		.crash_dir = diag.crash_dir,
		.sim_strict = sim_strict,
	};
	if (act.control_fd >= 0) {
		int fd = act.control_fd;
		act.control_fd = -1;
		if (control_adopt(&srv, fd, act.control_path, &cinfo) < 0)
			goto out_unlink;
	} else if (control_path[0] && control_open(&srv, control_path, &cinfo) < 0) {
		goto out_unlink;
	}
	if (act.metrics_fd >= 0) {
		int fd = act.metrics_fd;
		act.metrics_fd = -1;
		if (metrics_adopt(&srv, fd) < 0)
			goto out_unlink;
	} else if (metrics_uri && metrics_open(&srv, metrics_uri, metrics_allow_remote) < 0) {
		goto out_unlink;
	}
	conn_count_fds(&srv); /* the base the connections' fds are counted from */
	ferryd_log(FERRY_LOG_INFO, "up to %u clients, %u fds each; %lu of %lu fds kept in reserve", srv.max_clients,
		   max_client_fds, srv.fd_reserve, fd_limit);
	for (unsigned i = 0; i < srv.nr_listeners; i++)
		ferryd_log(FERRY_LOG_INFO, "ferryd %s serving %s on %s", FERRY_VERSION, ferry_host_device_name(srv.host),
			   srv.listeners[i].name);
	if (ready_fd >= 0) {
		char one = 1;
		if (write(ready_fd, &one, 1) != 1)
			ferryd_log(FERRY_LOG_WARN, "--ready-fd %d: %s", ready_fd, strerror(errno));
		close(ready_fd);
	}
	notify_send("READY=1\nSTATUS=serving %s on %s%s%s%s\nMAINPID=%d\n", ferry_host_device_name(srv.host),
		    srv.nr_listeners ? srv.listeners[0].name : "(no client socket)",
		    srv.nr_listeners > 1 ? " and more" : "", metrics_address(&srv) ? ", metrics on " : "",
		    metrics_address(&srv) ? metrics_address(&srv) : "", (int)getpid());
	run(&srv);
	status = srv.stop ? 0 : 1;
	notify_send("STOPPING=1\nSTATUS=shutting down\n");

out_unlink:
	metrics_close(&srv);
	control_close(&srv);
	conn_free_all(&srv);
	listeners_close(&srv);
out:
	conn_free_all(&srv);
	/* After the clients: their contexts' last kernel events were pulled as they went. */
	if (trace_file && ferryd_write_trace(srv.host, trace_file) < 0)
		status = 1;
	ferry_host_destroy(srv.host);
	capture_ctl_fini(&srv);
	listeners_close(&srv);
	if (srv.signal_fd >= 0)
		close(srv.signal_fd);
	if (srv.epfd >= 0)
		close(srv.epfd);
	if (srv.remote_epfd >= 0)
		close(srv.remote_epfd);
	if (srv.reserve_fd >= 0)
		close(srv.reserve_fd);
	activation_close(&act);
	notify_fini();
	ferryd_auth_free(srv.auth);
	return status;
}
