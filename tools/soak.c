/* `ferry soak`: runs a mix of good and hostile clients against one ferryd for a fixed time, then
 * checks ferryd is back at its baseline (fds, RSS, objects) and reports the good clients' latency. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control_client.h"
#include "ferryd_spawn.h"
#include "soak.h"
#include "subcommands.h"

#define MAX_WORKERS 32
/* After the deadline a worker finishes its round: a hang round takes the hangcheck plus its
 * report, a good round one submit. Past this grace it is killed and counted as stuck. */
#define GRACE_MS 30000
#define SETTLE_MS 20000

#if defined(__SANITIZE_ADDRESS__)
/* ASan's allocator keeps freed chunks in quarantine and per-thread caches. */
#define DEFAULT_RSS_TOLERANCE_MIB 64
#else
#define DEFAULT_RSS_TOLERANCE_MIB 16
#endif

/* The default mix churns objects fastest; `--mix all` (what CI runs) adds slow readers (ferryd
 * must stop reading them rather than queue the memfds of replies nobody reads) and heavy clients
 * (maximum-cost validation: they slow the churn of the others ~10x on two cores). */
static const unsigned mix_default_msm[SOAK_KIND_COUNT] = { [SOAK_GOOD] = 2, [SOAK_FAULT] = 1, [SOAK_HANG] = 1,
							    [SOAK_KILL] = 1, [SOAK_FLOOD] = 1, [SOAK_GREEDY] = 1 };
static const unsigned mix_all_msm[SOAK_KIND_COUNT] = { [SOAK_GOOD] = 2, [SOAK_FAULT] = 1, [SOAK_HANG] = 1,
						       [SOAK_KILL] = 1, [SOAK_SLOW] = 1, [SOAK_FLOOD] = 2,
						       [SOAK_HEAVY] = 1, [SOAK_GREEDY] = 1 };
static const unsigned mix_default_v3d[SOAK_KIND_COUNT] = { [SOAK_V3D] = 2, [SOAK_KILL] = 1, [SOAK_FLOOD] = 1 };
static const unsigned mix_all_v3d[SOAK_KIND_COUNT] = { [SOAK_V3D] = 2, [SOAK_KILL] = 1, [SOAK_SLOW] = 1,
						       [SOAK_FLOOD] = 2 };

struct soak {
	struct soak_env env;
	unsigned mix[SOAK_KIND_COUNT];
	struct soak_slot *slots; /* shared with the workers */
	volatile int *stop;
	unsigned nslots;
	const char *control;
	pid_t ferryd_pid;
	bool spawned;
	struct ferryd_proc proc;
	int checks, failures;
	int peak_fds;
	long peak_rss;
	char capture_dir[160];
	bool warming_up;
	unsigned operator_requests, operator_errors;
};

static volatile int *stop_flag;

/* Ctrl-C or SIGTERM ends the run early; the checks and the summary still follow. */
static void on_stop_signal(int sig)
{
	(void)sig;
	if (stop_flag)
		*stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ferry soak [options]\n"
		"Runs a mix of clients against one ferryd for a fixed time, then checks that ferryd's fds,\n"
		"RSS and object counts are back at their baseline and that good clients saw only right bytes.\n\n"
		"  --duration SECS      how long the mix runs (default 120; also --seconds; \"120s\" works).\n"
		"                       $FERRY_SOAK_SECONDS, when set, overrides it\n"
		"  --gpu GPU            a630 (default), a660, v3d-4.2, v3d-7.1 (a spawned ferryd's GPU)\n"
		"  --server URI         soak a running ferryd (unix:PATH) instead of spawning one\n"
		"  --ferryd PATH        the ferryd to spawn\n"
		"  --mix MIX            default | all | KIND=N,... with KIND good, fault, hang, kill, slow,\n"
		"                       flood, v3d, heavy, greedy (at most %d workers)\n"
		"  --hangcheck-ms MS    a spawned ferryd's hangcheck (default 200)\n"
		"  --warmup SECS        the mix runs this long before the baseline is taken (default 3)\n"
		"  --rss-tolerance-mib N  RSS growth accepted over the run (default %d)\n"
		"  --max-p99-ms MS      the good clients' p99 submit+wait latency must stay under (default 1000)\n"
		"  --seed N             the clients' random streams\n"
		"  --v3d-tenancy shared|exclusive  a spawned V3D ferryd's (default shared with several V3D\n"
		"                       workers; under exclusive they take turns)\n"
		"Exit 0 iff every check held.\n",
		MAX_WORKERS, DEFAULT_RSS_TOLERANCE_MIB);
}

static void check(struct soak *k, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(struct soak *k, bool ok, const char *fmt, ...)
{
	va_list ap;
	k->checks++;
	if (!ok)
		k->failures++;
	printf("  %s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int parse_seconds(const char *s, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || (*end && strcmp(end, "s")) || v == 0 || v > 7 * 24 * 3600)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_mix(const char *arg, bool v3d, unsigned mix[SOAK_KIND_COUNT])
{
	if (!strcmp(arg, "default") || !strcmp(arg, "all")) {
		bool all = !strcmp(arg, "all");
		const unsigned *m = v3d ? (all ? mix_all_v3d : mix_default_v3d) : (all ? mix_all_msm : mix_default_msm);
		memcpy(mix, m, sizeof(unsigned) * SOAK_KIND_COUNT);
		return 0;
	}
	memset(mix, 0, sizeof(unsigned) * SOAK_KIND_COUNT);
	char *copy = strdup(arg), *save = NULL;
	int r = copy ? 0 : -1;
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && r == 0; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		r = -1;
		if (!eq)
			break;
		*eq = '\0';
		for (int i = 0; i < SOAK_KIND_COUNT; i++)
			if (!strcmp(tok, soak_kind_name((enum soak_kind)i))) {
				mix[i] = (unsigned)strtoul(eq + 1, NULL, 10);
				r = 0;
			}
	}
	free(copy);
	return r;
}

static bool ferryd_alive(struct soak *k)
{
	if (k->spawned) {
		int st;
		pid_t w = waitpid(k->proc.pid, &st, WNOHANG);
		if (w == k->proc.pid) {
			fprintf(stderr, "ferry soak: ferryd died (status 0x%x)\n", st);
			k->proc.pid = -1;
			return false;
		}
		return w == 0;
	}
	return k->ferryd_pid <= 0 || kill(k->ferryd_pid, 0) == 0;
}

static void sample(struct soak *k)
{
	if (k->ferryd_pid <= 0)
		return;
	int fds = ferryd_proc_fd_count(k->ferryd_pid);
	long rss = ferryd_proc_rss_kib(k->ferryd_pid);
	if (fds > k->peak_fds)
		k->peak_fds = fds;
	if (rss > k->peak_rss)
		k->peak_rss = rss;
}

/* The operator's side, while the clients run: sync dumps, fault reports, the trace switched on,
 * fetched and off, a capture started and stopped — each walking state that killed and faulting
 * clients are tearing down. Only on a ferryd the soak started (they change its settings). */
static void operate(struct soak *k, unsigned tick)
{
	char req[256];
	switch (tick % 8) {
	case 0: snprintf(req, sizeof(req), "sync"); break;
	case 1: snprintf(req, sizeof(req), "reports"); break;
	case 2: snprintf(req, sizeof(req), "trace start"); break;
	/* The trace's JSON (megabytes of it under this load) only in the warm-up: glibc keeps such
	 * freed blocks for a while, which the RSS check cannot tell from a leak. */
	case 3: snprintf(req, sizeof(req), k->warming_up ? "trace" : "trace clear"); break;
	case 4: snprintf(req, sizeof(req), "trace stop"); break;
	case 5: snprintf(req, sizeof(req), "capture start --count 8 --dir %s --format both", k->capture_dir); break;
	case 6: snprintf(req, sizeof(req), "report 1"); break;
	default: snprintf(req, sizeof(req), "capture stop"); break;
	}
	char *answer = NULL;
	k->operator_requests++;
	if (control_request(k->control, req, 10000, &answer) < 0) {
		k->operator_errors++;
	} else if (strncmp(answer, "ok\n", 3) != 0 && tick % 8 != 6 && tick % 8 != 7) {
		/* "report 1" may be gone already and "capture stop" may find it done: both fine. */
		if (!k->operator_errors++)
			fprintf(stderr, "ferry soak: control '%s': %.200s\n", req, answer);
	}
	free(answer);
}

/* Forks the mix's workers into fresh slots, runs them until deadline_ms, reaps them. Returns the
 * number of workers that did not end by themselves (stuck or crashed). */
static int run_mix(struct soak *k, long long deadline_ms)
{
	k->env.deadline_ms = deadline_ms;
	memset(k->slots, 0, sizeof(struct soak_slot) * MAX_WORKERS);
	k->nslots = 0;
	for (int kind = 0; kind < SOAK_KIND_COUNT; kind++)
		for (unsigned i = 0; i < k->mix[kind] && k->nslots < MAX_WORKERS; i++) {
			struct soak_slot *s = &k->slots[k->nslots++];
			s->kind = (enum soak_kind)kind;
			s->index = k->nslots;
		}
	fflush(NULL);
	for (unsigned i = 0; i < k->nslots; i++) {
		struct soak_slot *s = &k->slots[i];
		pid_t pid = fork();
		if (pid < 0) {
			soak_fail(s, "fork: %s", strerror(errno));
			s->pid = -1;
			continue;
		}
		if (pid == 0) {
			/* Its own process group, so a stuck worker goes together with its victims. */
			setpgid(0, 0);
			static void (*const body[SOAK_KIND_COUNT])(const struct soak_env *, struct soak_slot *) = {
				soak_run_good, soak_run_fault, soak_run_hang, soak_run_kill,
				soak_run_slow, soak_run_flood, soak_run_v3d, soak_run_heavy,
				soak_run_greedy,
			};
			signal(SIGPIPE, SIG_IGN);
			body[s->kind](&k->env, s);
			fflush(NULL);
			_exit(0);
		}
		s->pid = pid;
	}
	unsigned live = 0, bad = 0, tick = 0;
	for (unsigned i = 0; i < k->nslots; i++) {
		if (k->slots[i].pid > 0)
			live++;
		else
			bad++;
	}
	bool ferryd_ok = true;
	while (live) {
		long long now = soak_now_ms();
		if (ferryd_ok && !ferryd_alive(k)) {
			ferryd_ok = false;
			*k->stop = 1; /* nothing to serve them: let the workers end */
		}
		for (unsigned i = 0; i < k->nslots; i++) {
			struct soak_slot *s = &k->slots[i];
			int st;
			if (s->pid <= 0 || waitpid(s->pid, &st, WNOHANG) != s->pid)
				continue;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				bad++;
				soak_fail(s, "worker %s exited with status 0x%x", soak_kind_name(s->kind), st);
			}
			s->pid = 0;
			live--;
		}
		if (live && now > deadline_ms + GRACE_MS) {
			for (unsigned i = 0; i < k->nslots; i++) {
				struct soak_slot *s = &k->slots[i];
				if (s->pid <= 0)
					continue;
				kill(-s->pid, SIGKILL);
				waitpid(s->pid, NULL, 0);
				soak_fail(s, "worker %s still running %d s after the deadline: killed",
					  soak_kind_name(s->kind), GRACE_MS / 1000);
				s->pid = 0;
				bad++;
				live--;
			}
		}
		sample(k);
		if (k->spawned && ferryd_ok && ++tick % 3 == 0 && now < deadline_ms)
			operate(k, tick / 3);
		usleep(100 * 1000);
	}
	return (int)bad + (ferryd_ok ? 0 : 1);
}

/* Polls until ferryd is back at want (or SETTLE_MS): disconnects and retirements are handled
 * asynchronously. With want NULL (the baseline), until its counts stop moving. */
static void settle(struct soak *k, const struct soak_probe *want, struct soak_probe *now)
{
	struct soak_probe last = { .fds = -2 };
	int stable = 0;
	for (long long end = soak_now_ms() + SETTLE_MS; soak_now_ms() < end; usleep(100 * 1000)) {
		soak_probe(k->control, k->ferryd_pid, now, NULL);
		if (want) {
			if (now->clients == want->clients && now->contexts == want->contexts &&
			    now->queues == want->queues && now->bos == want->bos && now->bo_bytes == want->bo_bytes &&
			    now->shadow_bytes == want->shadow_bytes && now->fds == want->fds)
				return;
			continue;
		}
		bool same = now->fds == last.fds && now->clients == last.clients && now->bos == last.bos;
		stable = same ? stable + 1 : 0;
		last = *now;
		if (stable >= 3 && (!k->spawned || now->clients == 0))
			return;
	}
}

/* The capture directory: flat, files only. */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[PATH_MAX];
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	closedir(d);
	rmdir(dir);
}

static void print_probe_row(const char *name, long long base, long long after, long long peak)
{
	if (peak >= 0)
		printf("  %-14s %12lld %12lld %12lld\n", name, base, after, peak);
	else
		printf("  %-14s %12lld %12lld %12s\n", name, base, after, "");
}

int cmd_soak(int argc, char **argv)
{
	enum { OPT_DURATION = 256, OPT_GPU, OPT_SERVER, OPT_FERRYD, OPT_MIX, OPT_HANGCHECK, OPT_WARMUP,
	       OPT_RSS, OPT_P99, OPT_SEED, OPT_TENANCY };
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "seconds", required_argument, NULL, OPT_DURATION },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "server", required_argument, NULL, OPT_SERVER },
		{ "ferryd", required_argument, NULL, OPT_FERRYD },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "hangcheck-ms", required_argument, NULL, OPT_HANGCHECK },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "rss-tolerance-mib", required_argument, NULL, OPT_RSS },
		{ "max-p99-ms", required_argument, NULL, OPT_P99 },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "v3d-tenancy", required_argument, NULL, OPT_TENANCY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned duration = 120, warmup = 3, hangcheck = 200, rss_tol = DEFAULT_RSS_TOLERANCE_MIB, p99_ms = 1000;
	unsigned seed = 12345;
	const char *gpu = "a630", *server = NULL, *ferryd_opt = NULL, *mix_arg = "default", *tenancy = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		bool bad = false;
		switch (c) {
		case OPT_DURATION: bad = parse_seconds(optarg, &duration) < 0; break;
		case OPT_WARMUP: bad = parse_seconds(optarg, &warmup) < 0; break;
		case OPT_GPU: gpu = optarg; break;
		case OPT_SERVER: server = optarg; break;
		case OPT_FERRYD: ferryd_opt = optarg; break;
		case OPT_MIX: mix_arg = optarg; break;
		case OPT_HANGCHECK: hangcheck = (unsigned)strtoul(optarg, NULL, 10); bad = !hangcheck; break;
		case OPT_RSS: rss_tol = (unsigned)strtoul(optarg, NULL, 10); break;
		case OPT_P99: p99_ms = (unsigned)strtoul(optarg, NULL, 10); bad = !p99_ms; break;
		case OPT_SEED: seed = (unsigned)strtoul(optarg, NULL, 10); break;
		case OPT_TENANCY:
			tenancy = optarg;
			bad = strcmp(optarg, "shared") && strcmp(optarg, "exclusive");
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "ferry soak: bad value '%s'\n", optarg);
			return 2;
		}
	}
	const char *env_seconds = getenv("FERRY_SOAK_SECONDS");
	if (env_seconds && env_seconds[0] && parse_seconds(env_seconds, &duration) < 0) {
		fprintf(stderr, "ferry soak: bad FERRY_SOAK_SECONDS '%s'\n", env_seconds);
		return 2;
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	bool v3d = !strncmp(gpu, "v3d-", 4);
	struct soak k = { .peak_fds = -1, .peak_rss = -1 };
	if (parse_mix(mix_arg, v3d, k.mix) < 0) {
		fprintf(stderr, "ferry soak: bad --mix '%s'\n", mix_arg);
		return 2;
	}
	unsigned nworkers = 0, v3d_clients = k.mix[SOAK_V3D];
	for (int i = 0; i < SOAK_KIND_COUNT; i++)
		nworkers += k.mix[i];
	if (!nworkers || nworkers > MAX_WORKERS) {
		fprintf(stderr, "ferry soak: the mix must have 1..%d workers\n", MAX_WORKERS);
		return 2;
	}
	if ((!v3d && v3d_clients) || (v3d && (k.mix[SOAK_GOOD] || k.mix[SOAK_FAULT] || k.mix[SOAK_HANG] ||
						 k.mix[SOAK_HEAVY] || k.mix[SOAK_GREEDY]))) {
		fprintf(stderr, "ferry soak: v3d workers run on a V3D ferryd (--gpu v3d-*), the msm kinds on an Adreno one\n");
		return 2;
	}
	if (server && strncmp(server, "unix:", 5) != 0) {
		fprintf(stderr, "ferry soak: --server takes unix:PATH (raw clients and the control socket are local)\n");
		return 2;
	}

	char ctl_path[256], hang_arg[16];
	if (!server) {
		char path[PATH_MAX];
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "ferry soak: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		/* A small quarantine, so ferryd's RSS reflects leaks rather than ASan's allocator. */
		const char *asan = getenv("ASAN_OPTIONS");
		char asan_opts[512];
		snprintf(asan_opts, sizeof(asan_opts), "%s%squarantine_size_mb=8", asan ? asan : "",
			 asan && asan[0] ? ":" : "");
		setenv("ASAN_OPTIONS", asan_opts, 1);
		snprintf(hang_arg, sizeof(hang_arg), "%u", hangcheck);
		/* Several V3D clients at once need shared tenancy (they are all ours); under exclusive
		 * tenancy they take turns, and killed holders must hand the device on. */
		if (!tenancy)
			tenancy = v3d_clients > 1 ? "shared" : "exclusive";
		const char *extra[] = { "--hangcheck-ms", hang_arg, "--allow-passthrough", "--log-level", "warn",
					"--v3d-tenancy", tenancy, NULL };
		if (ferryd_spawn(path, gpu, extra, true, 30000, &k.proc) < 0)
			return 1;
		k.spawned = true;
		snprintf(k.capture_dir, sizeof(k.capture_dir), "%.100s/capture", k.proc.dir);
		k.ferryd_pid = k.proc.pid;
		k.env.uri = k.proc.uri;
		k.env.socket_path = k.proc.socket;
		snprintf(ctl_path, sizeof(ctl_path), "%s", k.proc.control);
	} else {
		k.env.uri = server;
		k.env.socket_path = server + 5;
		if (control_path_of_uri(server, ctl_path, sizeof(ctl_path)) < 0) {
			fprintf(stderr, "ferry soak: no control socket for %s\n", server);
			return 2;
		}
	}
	k.control = ctl_path;
	struct soak_probe base, after;
	pid_t reported = 0;
	if (soak_probe(k.control, k.ferryd_pid, &base, &reported) < 0) {
		fprintf(stderr, "ferry soak: ferryd's control socket %s does not answer\n", k.control);
		if (k.spawned)
			ferryd_stop(&k.proc, 10000);
		return 1;
	}
	if (!k.spawned && reported > 0 && ferryd_proc_fd_count(reported) >= 0)
		k.ferryd_pid = reported; /* local and ours: /proc works */
	k.env.ferryd_pid = k.ferryd_pid;
	k.env.control = k.control;
	k.env.hangcheck_ms = hangcheck;
	k.env.seed = seed;
	k.env.gpu = gpu;

	size_t shm_len = sizeof(struct soak_slot) * MAX_WORKERS + 64;
	void *shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		fprintf(stderr, "ferry soak: mmap: %s\n", strerror(errno));
		if (k.spawned)
			ferryd_stop(&k.proc, 10000);
		return 1;
	}
	k.slots = shm;
	k.stop = (volatile int *)((char *)shm + sizeof(struct soak_slot) * MAX_WORKERS);
	k.env.stop = k.stop;
	stop_flag = k.stop;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	printf("ferry soak: %u s on %s, ferryd pid %d (%s), %u workers:", duration, gpu, (int)k.ferryd_pid,
	       k.spawned ? "spawned" : server, nworkers);
	for (int i = 0; i < SOAK_KIND_COUNT; i++)
		if (k.mix[i])
			printf(" %s=%u", soak_kind_name((enum soak_kind)i), k.mix[i]);
	printf("\n");
	fflush(stdout);

	/* Warm-up: lazy allocations, pools and thread stacks settle; then the baseline. */
	k.warming_up = true;
	int warm_bad = run_mix(&k, soak_now_ms() + warmup * 1000ll);
	k.warming_up = false;
	uint64_t warm_unexpected = 0;
	for (unsigned i = 0; i < k.nslots; i++) {
		warm_unexpected += k.slots[i].unexpected;
		if (k.slots[i].first_error[0])
			printf("  warm-up %s#%u: %s\n", soak_kind_name(k.slots[i].kind), k.slots[i].index,
			       k.slots[i].first_error);
	}
	settle(&k, NULL, &base);
	k.peak_fds = base.fds;
	k.peak_rss = base.rss_kib;
	printf("baseline after %u s warm-up: fds %d, RSS %ld KiB, clients %lld, contexts %lld, bos %lld\n", warmup,
	       base.fds, base.rss_kib, base.clients, base.contexts, base.bos);
	fflush(stdout);

	long long t0 = soak_now_ms();
	int run_bad = warm_bad ? 0 : run_mix(&k, t0 + duration * 1000ll);
	long long ran_ms = soak_now_ms() - t0;
	bool alive = ferryd_alive(&k);
	if (alive)
		settle(&k, &base, &after);
	else
		memset(&after, 0xff, sizeof(after));

	/* What each kind did. */
	struct soak_hist lat = { 0 };
	uint64_t per[SOAK_KIND_COUNT][5] = { { 0 } };
	uint64_t slow_pinned = 0;
	printf("\nclients over %.1f s:\n  %-6s %7s %12s %10s %10s %8s\n", ran_ms / 1000.0, "kind", "workers",
	       "requests", "rounds", "unexpected", "skipped");
	for (unsigned i = 0; i < k.nslots; i++) {
		struct soak_slot *s = &k.slots[i];
		per[s->kind][0]++;
		per[s->kind][1] += s->requests;
		per[s->kind][2] += s->rounds;
		per[s->kind][3] += s->unexpected;
		per[s->kind][4] += s->skipped;
		if (s->kind == SOAK_GOOD || s->kind == SOAK_V3D)
			soak_hist_merge(&lat, &s->lat);
		if (s->pinned_fds > slow_pinned)
			slow_pinned = s->pinned_fds;
	}
	for (int i = 0; i < SOAK_KIND_COUNT; i++)
		if (per[i][0])
			printf("  %-6s %7llu %12llu %10llu %10llu %8llu\n", soak_kind_name((enum soak_kind)i),
			       (unsigned long long)per[i][0], (unsigned long long)per[i][1],
			       (unsigned long long)per[i][2], (unsigned long long)per[i][3],
			       (unsigned long long)per[i][4]);
	for (unsigned i = 0; i < k.nslots; i++)
		if (k.slots[i].first_error[0])
			printf("  %s#%u first error: %s\n", soak_kind_name(k.slots[i].kind), k.slots[i].index,
			       k.slots[i].first_error);
	printf("\n%s clients' submit+wait latency: count %llu, median %llu us, p99 %llu us, max %llu us, "
	       "mean %.0f us\n", v3d ? "V3D" : "good",
	       (unsigned long long)lat.count, (unsigned long long)soak_hist_quantile(&lat, 0.5),
	       (unsigned long long)soak_hist_quantile(&lat, 0.99), (unsigned long long)lat.max_us,
	       lat.count ? (double)lat.sum_us / (double)lat.count : 0.0);
	if (per[SOAK_SLOW][0])
		printf("slow readers: ferryd held up to %llu fds beyond its BOs' own while one had %d BO replies "
		       "unread\n", (unsigned long long)slow_pinned, SOAK_SLOW_BOS);
	printf("\nferryd %22s %12s %12s\n", "baseline", "after", "peak");
	print_probe_row("fds", base.fds, after.fds, k.peak_fds);
	print_probe_row("RSS KiB", base.rss_kib, after.rss_kib, k.peak_rss);
	print_probe_row("clients", base.clients, after.clients, -1);
	print_probe_row("contexts", base.contexts, after.contexts, -1);
	print_probe_row("queues", base.queues, after.queues, -1);
	print_probe_row("bos", base.bos, after.bos, -1);
	print_probe_row("bo-bytes", base.bo_bytes, after.bo_bytes, -1);
	print_probe_row("shadow-bytes", base.shadow_bytes, after.shadow_bytes, -1);
	print_probe_row("submits", base.submits, after.submits, -1);
	print_probe_row("faults", base.faults, after.faults, -1);
	print_probe_row("bad-messages", base.bad_messages, after.bad_messages, -1);

	/* ferryd's end: SIGTERM must give exit 0, and its log must hold no sanitizer report. */
	int stop_status = 0, log_hits = 0;
	if (k.spawned && k.proc.pid > 0) {
		kill(k.proc.pid, SIGTERM);
		long long end = soak_now_ms() + 30000;
		pid_t w;
		while ((w = waitpid(k.proc.pid, &stop_status, WNOHANG)) == 0 && soak_now_ms() < end)
			usleep(20 * 1000);
		if (w != k.proc.pid) {
			kill(k.proc.pid, SIGKILL);
			waitpid(k.proc.pid, &stop_status, 0);
			stop_status = -1;
		}
		k.proc.pid = -1;
	}
	printf("\nchecks:\n");
	if (k.spawned)
		log_hits = soak_log_scan(k.proc.log, 10);
	check(&k, warm_bad == 0 && run_bad == 0 && alive, "ferryd alive and every worker ended by itself");
	if (k.spawned) {
		check(&k, stop_status >= 0 && WIFEXITED(stop_status) && WEXITSTATUS(stop_status) == 0,
		      "ferryd exited 0 on SIGTERM (status 0x%x)", stop_status);
		check(&k, log_hits == 0, "ferryd's log holds no sanitizer report or crash (%d lines)", log_hits);
	}
	check(&k, warm_unexpected == 0, "no unexpected error during the warm-up");
	if (k.spawned)
		check(&k, k.operator_errors == 0, "operator requests (sync, reports, trace, capture) answered: %u, %u failed",
		      k.operator_requests, k.operator_errors);
	for (int i = 0; i < SOAK_KIND_COUNT; i++)
		if (per[i][0])
			check(&k, per[i][3] == 0 && per[i][2] > 0, "%s clients: %llu rounds, %llu unexpected errors",
			      soak_kind_name((enum soak_kind)i), (unsigned long long)per[i][2],
			      (unsigned long long)per[i][3]);
	uint64_t wrong = 0;
	for (unsigned i = 0; i < k.nslots; i++)
		wrong += k.slots[i].wrong_bytes;
	check(&k, wrong == 0, "no wrong bytes (%llu rounds with wrong bytes)", (unsigned long long)wrong);
	if (lat.count)
		check(&k, soak_hist_quantile(&lat, 0.99) <= p99_ms * 1000ull, "%s clients' p99 %llu us <= %u ms", v3d ? "V3D" : "good",
		      (unsigned long long)soak_hist_quantile(&lat, 0.99), p99_ms);
	if (per[SOAK_SLOW][0] && k.ferryd_pid > 0)
		check(&k, slow_pinned <= SOAK_SLOW_FD_SLACK,
		      "a client that never reads makes ferryd hold at most %d fds beyond its BOs' own (held %llu, "
		      "%d BO replies unread)", SOAK_SLOW_FD_SLACK, (unsigned long long)slow_pinned, SOAK_SLOW_BOS);
	if (base.fds >= 0)
		check(&k, after.fds == base.fds, "ferryd's fds back at the baseline (%d -> %d)", base.fds, after.fds);
	if (base.rss_kib >= 0)
		check(&k, after.rss_kib >= 0 && after.rss_kib - base.rss_kib <= (long)rss_tol * 1024,
		      "ferryd's RSS within %u MiB of the baseline (%ld -> %ld KiB)", rss_tol, base.rss_kib,
		      after.rss_kib);
	check(&k, after.clients == base.clients && after.contexts == base.contexts && after.queues == base.queues &&
			  after.bos == base.bos && after.bo_bytes == base.bo_bytes,
	      "clients, contexts, queues, BOs and BO bytes back at the baseline");
	if (base.shadow_bytes >= 0)
		check(&k, after.shadow_bytes == base.shadow_bytes, "shadow bytes back at the baseline (%lld -> %lld)",
		      base.shadow_bytes, after.shadow_bytes);

	if (k.spawned) {
		if (k.failures)
			ferryd_dump_log(&k.proc, 30);
		remove_tree(k.capture_dir);
		ferryd_stop(&k.proc, 1000); /* only removes its files now */
	}
	munmap(shm, shm_len);
	printf("\nsoak %s: %d checks, %d failed (%.0f s, %llu good submits, median %llu us, p99 %llu us, "
	       "fds %d -> %d, RSS %ld -> %ld KiB)\n",
	       k.failures ? "FAILED" : "passed", k.checks, k.failures, ran_ms / 1000.0, (unsigned long long)lat.count,
	       (unsigned long long)soak_hist_quantile(&lat, 0.5), (unsigned long long)soak_hist_quantile(&lat, 0.99),
	       base.fds, after.fds, base.rss_kib, after.rss_kib);
	return k.failures ? 1 : 0;
}
