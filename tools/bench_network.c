/* `ferry bench --network`: the CP_NOP IB loop of plain `ferry bench` (and with --vulkan the e2e
 * program's Vulkan loop) over a unix socket, tcp+TLS and plain tcp on loopback, and tcp+TLS across
 * a veth pair between two network namespaces with a delay line in the path, in one run, with
 * ferryd's own count of the bytes each submit puts on the wire. Figures, not pass/fail. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_ferry.h"
#include "bench_network.h"
#include "bench_stats.h"
#include "bench_vulkan.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "net_delay.h"

#define NB_CLIENT_ADDR "10.213.0.2"
#define NB_SERVER_ADDR "10.213.0.1"

/* What must be undone at the end, also from a signal handler (so: fixed arrays, pids, paths). */
struct nb_state {
	char dir[96];           /* certificates and metrics sockets (short: a socket path) */
	char ns[2][32];         /* [0] the client's namespace, [1] ferryd's */
	bool ns_made[2];
	int self_ns, ns_fd[2];  /* our own namespace, to come back to; the two made */
	char ip[32];            /* the ip(8) binary */
	struct ferryd_proc d_tls, d_plain;
	struct net_delay *delay;
};

static struct nb_state nb = { .self_ns = -1, .ns_fd = { -1, -1 }, .d_tls = { .pid = -1 },
			      .d_plain = { .pid = -1 } };

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* fork + exec only: safe in a signal handler. */
static void spawn_wait(const char *const *argv)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

static void teardown_async(void)
{
	if (nb.d_tls.pid > 0)
		kill(nb.d_tls.pid, SIGKILL);
	if (nb.d_plain.pid > 0)
		kill(nb.d_plain.pid, SIGKILL);
	for (int i = 0; i < 2; i++)
		if (nb.ns_made[i]) {
			const char *argv[] = { nb.ip, "netns", "del", nb.ns[i], NULL };
			spawn_wait(argv);
		}
	const char *const dirs[] = { nb.dir, nb.d_tls.dir, nb.d_plain.dir };
	for (int i = 0; i < 3; i++)
		if (dirs[i][0]) {
			const char *argv[] = { "/bin/rm", "-rf", dirs[i], NULL };
			spawn_wait(argv);
		}
}

static void on_signal(int sig)
{
	teardown_async();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void teardown_ns(void)
{
	for (int i = 0; i < 2; i++) {
		if (nb.ns_fd[i] >= 0)
			close(nb.ns_fd[i]);
		nb.ns_fd[i] = -1;
		if (nb.ns_made[i] && sh("%s netns del %s 2>/dev/null", nb.ip, nb.ns[i]) < 0)
			fprintf(stderr, "bench: could not remove network namespace %s\n", nb.ns[i]);
		nb.ns_made[i] = false;
	}
}

static void teardown(void)
{
	if (nb.self_ns >= 0)
		setns(nb.self_ns, CLONE_NEWNET);
	net_delay_stop(nb.delay);
	nb.delay = NULL;
	if (nb.d_tls.pid > 0)
		ferryd_stop(&nb.d_tls, 5000);
	if (nb.d_plain.pid > 0)
		ferryd_stop(&nb.d_plain, 5000);
	teardown_ns();
	if (nb.self_ns >= 0)
		close(nb.self_ns);
	nb.self_ns = -1;
	if (nb.dir[0])
		sh("rm -rf '%s'", nb.dir);
	nb.dir[0] = '\0';
}

/* ---- certificates (certtool, as docs/network.md shows) ---- */

static int make_certs(void)
{
	static const char *const steps[] = {
		"mkdir -p srv cli",
		"certtool --generate-privkey --key-type=ecdsa --outfile ca-key.pem",
		"printf 'cn = ferry bench CA\\nca\\ncert_signing_key\\nexpiration_days = 2\\n' > ca.tmpl",
		"certtool --generate-self-signed --load-privkey ca-key.pem --template ca.tmpl --outfile srv/ca-cert.pem",
		"cp srv/ca-cert.pem cli/ca-cert.pem",
		"certtool --generate-privkey --key-type=ecdsa --outfile srv/server-key.pem",
		"printf 'cn = 127.0.0.1\\nip_address = 127.0.0.1\\nip_address = " NB_SERVER_ADDR "\\ntls_www_server\\n"
		"signing_key\\nencryption_key\\nexpiration_days = 2\\n' > srv.tmpl",
		"certtool --generate-certificate --load-privkey srv/server-key.pem --load-ca-certificate srv/ca-cert.pem "
		"--load-ca-privkey ca-key.pem --template srv.tmpl --outfile srv/server-cert.pem",
		"certtool --generate-privkey --key-type=ecdsa --outfile cli/client-key.pem",
		"printf 'cn = ferry bench\\ntls_www_client\\nsigning_key\\nexpiration_days = 2\\n' > cli.tmpl",
		"certtool --generate-certificate --load-privkey cli/client-key.pem --load-ca-certificate srv/ca-cert.pem "
		"--load-ca-privkey ca-key.pem --template cli.tmpl --outfile cli/client-cert.pem",
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (sh("cd '%s' && { %s; } >/dev/null 2>&1", nb.dir, steps[i]) < 0) {
			fprintf(stderr, "bench: making certificates failed at: %s\n", steps[i]);
			return -1;
		}
	return 0;
}

/* ---- namespaces: [0] client, [1] server, a veth pair between them ---- */

static int enter(int fd)
{
	return setns(fd, CLONE_NEWNET) == 0 ? 0 : -errno;
}

static const char *make_namespaces(void)
{
	static char why[160];
	if (geteuid() != 0)
		return "needs root (network namespaces and a veth pair)";
	static const char *const ips[] = { "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip" };
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]) && !nb.ip[0]; i++)
		if (access(ips[i], X_OK) == 0)
			snprintf(nb.ip, sizeof(nb.ip), "%s", ips[i]);
	if (!nb.ip[0])
		return "ip(8) not found (Debian: iproute2)";
	int pid = (int)getpid();
	char va[16], vb[16];
	snprintf(va, sizeof(va), "fnb%dc", pid % 1000000);
	snprintf(vb, sizeof(vb), "fnb%ds", pid % 1000000);
	for (int i = 0; i < 2; i++) {
		snprintf(nb.ns[i], sizeof(nb.ns[i]), "ferry-bench-%d-%s", pid, i ? "server" : "client");
		if (sh("%s netns add %s 2>/dev/null", nb.ip, nb.ns[i]) < 0) {
			snprintf(why, sizeof(why), "`ip netns add %s` failed", nb.ns[i]);
			return why;
		}
		nb.ns_made[i] = true;
		char path[96];
		snprintf(path, sizeof(path), "/run/netns/%s", nb.ns[i]);
		nb.ns_fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (nb.ns_fd[i] < 0)
			return "cannot open the namespace made";
	}
	if (sh("%s link add %s type veth peer name %s 2>/dev/null && %s link set %s netns %s && %s link set %s netns %s && "
	       "%s -n %s addr add " NB_CLIENT_ADDR "/30 dev %s && %s -n %s link set %s up && %s -n %s link set lo up && "
	       "%s -n %s addr add " NB_SERVER_ADDR "/30 dev %s && %s -n %s link set %s up && %s -n %s link set lo up",
	       nb.ip, va, vb, nb.ip, va, nb.ns[0], nb.ip, vb, nb.ns[1], nb.ip, nb.ns[0], va, nb.ip, nb.ns[0], va,
	       nb.ip, nb.ns[0], nb.ip, nb.ns[1], vb, nb.ip, nb.ns[1], vb, nb.ip, nb.ns[1]) < 0) {
		/* An end still in our namespace if a move failed; gone with its namespace otherwise. */
		sh("%s link del %s 2>/dev/null; %s link del %s 2>/dev/null", nb.ip, va, nb.ip, vb);
		return "making the veth pair failed (no veth support in this kernel?)";
	}
	return NULL;
}

/* A port free on addr in the current namespace now (ferryd takes it a moment later). */
static int free_port(const char *addr)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int port = -1;
	if (fd >= 0 && inet_pton(AF_INET, addr, &sa.sin_addr) == 1 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* ---- ferryd's metrics (docs/service.md), over its unix metrics socket ---- */

struct counts {
	bool ok;
	double rx, tx, submits; /* ferryd's frame bytes read / written (both transports), submits */
};

static double sum_metric(const char *text, const char *name)
{
	double sum = 0;
	size_t nl = strlen(name);
	for (const char *p = text; (p = strstr(p, name)); p += nl) {
		if (p != text && p[-1] != '\n')
			continue;
		const char *v = p + nl;
		if (*v == '{')
			v = strchr(v, '}');
		if (v && (*v == '}' || *v == ' '))
			sum += strtod(v + 1, NULL);
	}
	return sum;
}

static struct counts scrape(const char *sock)
{
	struct counts c = { 0 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	static char buf[1 << 16];
	size_t n = 0;
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == (ssize_t)sizeof(req) - 1) {
		ssize_t r;
		while (n < sizeof(buf) - 1 && (r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0)) > 0)
			n += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	buf[n] = '\0';
	if (strncmp(buf, "HTTP/1.1 200", 12) != 0)
		return c;
	c.rx = sum_metric(buf, "ferry_wire_received_bytes_total");
	c.tx = sum_metric(buf, "ferry_wire_sent_bytes_total");
	c.submits = sum_metric(buf, "ferry_submits_total");
	c.ok = true;
	return c;
}

/* ---- one row ---- */

/* The CP_NOP rows are measured in rounds taken in turn (1 2 3 4 1 2 3 4 ...), each figure the
 * median over the rounds, so that a burst of load from elsewhere on a shared machine lands on
 * every row alike rather than on one. */
#define NB_ROUNDS 3

struct row {
	const char *name;
	const char *skip;      /* why it was not measured, or NULL */
	const char *metrics;   /* the serving ferryd's metrics socket */
	int rounds;            /* rounds measured */
	double med[NB_ROUNDS], p99[NB_ROUNDS], rate[NB_ROUNDS];
	/* Summed over the rounds, between the marks: ferryd's frame bytes read and written and its
	 * submits; libferry's own count (tcp only: client_rounds says how many rounds had it). */
	double up, down, submits, cup, cdown;
	int client_rounds;
	struct counts before;
	struct ferry_wire_stats cs0;
	bool cs0_ok;
};

static void mark(void *arg, struct ferry_device *dev, bool end)
{
	struct row *r = arg;
	struct counts c = scrape(r->metrics);
	struct ferry_wire_stats ws;
	bool ws_ok = ferry_device_wire_stats(dev, &ws) == 0;
	if (!end) {
		r->before = c;
		r->cs0 = ws;
		r->cs0_ok = ws_ok;
		return;
	}
	if (c.ok && r->before.ok) {
		r->up += c.rx - r->before.rx;
		r->down += c.tx - r->before.tx;
		r->submits += c.submits - r->before.submits;
	}
	if (ws_ok && r->cs0_ok) {
		r->cup += (double)(ws.tx_bytes - r->cs0.tx_bytes);
		r->cdown += (double)(ws.rx_bytes - r->cs0.rx_bytes);
		r->client_rounds++;
	}
}

static void measure(struct row *r, const char *uri, bool insecure, int iters)
{
	if (r->skip || r->rounds >= NB_ROUNDS)
		return;
	struct figures f = { .mark = mark, .mark_arg = r };
	if (insecure)
		setenv("FERRY_INSECURE", "1", 1);
	int e = bench_ferry(uri, iters, &f);
	unsetenv("FERRY_INSECURE");
	if (e < 0) {
		fprintf(stderr, "bench: %s: %s\n", r->name, strerror(-e));
		r->skip = "failed (see above)";
		return;
	}
	r->med[r->rounds] = f.rt_median_us;
	r->p99[r->rounds] = f.rt_p99_us;
	r->rate[r->rounds] = f.pipelined_per_s;
	r->rounds++;
}

static char vk_device[96] = "?"; /* what the Vulkan driver called the GPU */

static void measure_vk(struct row *r, const char *cross_dir, const char *socket, bool insecure, int iters)
{
	if (r->skip)
		return;
	char sock_env[PATH_MAX + 16], creds_env[PATH_MAX + 24];
	snprintf(sock_env, sizeof(sock_env), "FERRY_SOCKET=%s", socket);
	snprintf(creds_env, sizeof(creds_env), "FERRY_TLS_CREDS=%s/cli", nb.dir);
	const char *env[] = { sock_env, insecure ? "FERRY_INSECURE=1" : creds_env, NULL };
	struct counts b = scrape(r->metrics);
	struct vk_figures vk;
	int e = bench_vulkan_run(cross_dir, "libferry-shim.so", env, "/usr/share/vulkan/icd.d/freedreno_icd.aarch64.json",
				 iters, &vk);
	struct counts a = scrape(r->metrics);
	if (e < 0) {
		r->skip = "failed (see above)";
		return;
	}
	if (a.ok && b.ok) {
		r->up = a.rx - b.rx;
		r->down = a.tx - b.tx;
		r->submits = a.submits - b.submits;
	}
	if (vk.device[0])
		snprintf(vk_device, sizeof(vk_device), "%s", vk.device);
	r->med[0] = vk.wait_median_us;
	r->p99[0] = vk.wait_p99_us;
	r->rate[0] = vk.pipelined_per_s;
	r->rounds = 1;
}

static double median_of(const double *v, int n)
{
	double t[NB_ROUNDS];
	memcpy(t, v, sizeof(double) * (size_t)n);
	return bench_percentile(t, n, 50);
}

static void print_rows(const struct row *rows, int n, bool client)
{
	const struct row *u = &rows[0];
	printf("%-36s %9s %9s %6s %11s %6s %15s%s\n", "path", "s+w med", "p99", "x unix", "pipelined/s", "x unix",
	       "B/submit up/dn", client ? "    client up/dn" : "");
	double um = u->rounds ? median_of(u->med, u->rounds) : 0, ur = u->rounds ? median_of(u->rate, u->rounds) : 0;
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (!r->rounds) {
			printf("%-36s skipped: %s\n", r->name, r->skip ? r->skip : "not measured");
			continue;
		}
		char ps[40] = "?", cs[40] = "-";
		if (r->submits > 0)
			snprintf(ps, sizeof(ps), "%.0f / %.0f", r->up / r->submits, r->down / r->submits);
		if (r->client_rounds == r->rounds && r->submits > 0)
			snprintf(cs, sizeof(cs), "%.0f / %.0f", r->cup / r->submits, r->cdown / r->submits);
		double m = median_of(r->med, r->rounds), rate = median_of(r->rate, r->rounds);
		printf("%-36s %9.1f %9.1f %5.2fx %11.0f %5.2fx %15s", r->name, m, median_of(r->p99, r->rounds),
		       um > 0 ? m / um : 0, rate, ur > 0 ? rate / ur : 0, ps);
		if (client)
			printf(" %15s", cs);
		printf("\n");
	}
}

enum { ROW_UNIX, ROW_TLS, ROW_PLAIN, ROW_VETH, NR_ROWS };

int bench_network(const char *ferryd, const char *gpu, int iters, int delay_ms, bool vulkan, const char *cross_dir)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction old[4];
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
	int ret = 1;
	const char *tmp = getenv("TMPDIR");
	snprintf(nb.dir, sizeof(nb.dir), "%.60s/ferry-netbench-XXXXXX", tmp && tmp[0] && strlen(tmp) <= 60 ? tmp : "/tmp");
	if (!mkdtemp(nb.dir)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		nb.dir[0] = '\0';
		goto out;
	}
	nb.self_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	const char *tls_why = NULL;
	if (sh("command -v certtool >/dev/null 2>&1") < 0)
		tls_why = "certtool not found (Debian: gnutls-bin): plain tcp only";
	else if (make_certs() < 0)
		tls_why = "making certificates failed: plain tcp only";
	bool tls = !tls_why;
	const char *ns_why = make_namespaces();
	bool ns = !ns_why;
	if (ns_why && nb.ns_made[0] + nb.ns_made[1] > 0)
		teardown_ns(); /* half made: undo, keep going without */

	/* ferryd serves from the server namespace (when there is one): loopback there, and the veth
	 * end. Its unix socket and metrics socket are files, reachable from any namespace. */
	if (ns && enter(nb.ns_fd[1]) < 0) {
		fprintf(stderr, "bench: setns: %s\n", strerror(errno));
		goto out;
	}
	const char *bind_addr = ns ? "0.0.0.0" : "127.0.0.1";
	int port_tls = tls ? free_port(bind_addr) : 0, port_plain = free_port(bind_addr);
	char listen_tls[64], listen_plain[64], creds[PATH_MAX], m_tls[PATH_MAX], m_plain[PATH_MAX];
	snprintf(listen_tls, sizeof(listen_tls), "tcp:%s:%d", bind_addr, port_tls);
	snprintf(listen_plain, sizeof(listen_plain), "tcp:%s:%d", bind_addr, port_plain);
	snprintf(creds, sizeof(creds), "%s/srv", nb.dir);
	snprintf(m_tls, sizeof(m_tls), "unix:%s/metrics-tls.sock", nb.dir);
	snprintf(m_plain, sizeof(m_plain), "unix:%s/metrics-plain.sock", nb.dir);
	/* One ferryd cannot serve TLS and plain tcp at once (--insecure is for all its listeners):
	 * the plain row has a second one, started the same way. */
	const char *const x_tls[] = { "--listen", listen_tls, "--tls-creds", creds, "--metrics", m_tls, NULL };
	const char *const x_plain[] = { "--listen", listen_plain, "--insecure", "--metrics", m_plain, NULL };
	if ((tls && ferryd_spawn(ferryd, gpu, x_tls, true, 10000, &nb.d_tls) < 0) ||
	    ferryd_spawn(ferryd, gpu, x_plain, true, 10000, &nb.d_plain) < 0)
		goto out;

	/* The delay line listens on the client namespace's loopback and relays across the veth. */
	char veth_uri[64] = "";
	if (ns) {
		char port[8];
		unsigned dport = 0;
		snprintf(port, sizeof(port), "%d", tls ? port_tls : port_plain);
		int e = enter(nb.ns_fd[0]);
		if (e == 0)
			e = net_delay_start("127.0.0.1", NB_SERVER_ADDR, port, (unsigned)delay_ms * 1000, &nb.delay, &dport);
		if (e < 0) {
			fprintf(stderr, "bench: delay line: %s\n", strerror(-e));
			goto out;
		}
		snprintf(veth_uri, sizeof(veth_uri), "tcp:127.0.0.1:%u", dport);
	}
	char cli_creds[PATH_MAX], tls_uri[64], plain_uri[64], veth_name[64];
	snprintf(cli_creds, sizeof(cli_creds), "%s/cli", nb.dir);
	setenv("FERRY_TLS_CREDS", cli_creds, 1);
	snprintf(tls_uri, sizeof(tls_uri), "tcp:127.0.0.1:%d", port_tls);
	snprintf(plain_uri, sizeof(plain_uri), "tcp:127.0.0.1:%d", port_plain);
	snprintf(veth_name, sizeof(veth_name), "(4) tcp%s, veth + %d ms delay line", tls ? "+TLS" : " plain", delay_ms);

	const struct ferryd_proc *main_d = tls ? &nb.d_tls : &nb.d_plain;
	const char *main_m = (tls ? m_tls : m_plain) + 5;
	struct row rows[NR_ROWS] = {
		[ROW_UNIX] = { .name = "(1) unix socket", .metrics = main_m },
		[ROW_TLS] = { .name = "(2) tcp+TLS, loopback", .metrics = m_tls + 5, .skip = tls_why },
		[ROW_PLAIN] = { .name = "(3) tcp plain, loopback", .metrics = m_plain + 5 },
		[ROW_VETH] = { .name = veth_name, .metrics = main_m, .skip = ns_why },
	};
	struct row vk[NR_ROWS];
	memcpy(vk, rows, sizeof(vk));

	printf("ferry bench --network: simulated %s, %d iterations, one run (figures, not pass/fail)\n", gpu, iters);
	if (tls_why)
		printf("  TLS: %s\n", tls_why);
	if (ns_why)
		printf("  veth row: %s\n", ns_why);
	else
		printf("  veth row: client and ferryd in two network namespaces made for this run, joined by a veth pair;\n"
		       "  the %d ms each way comes from the bench's own TCP delay line (tools/net_delay.c) on the client\n"
		       "  side, standing in for `tc qdisc ... netem delay %dms` (this kernel may lack sch_netem)\n",
		       delay_ms, delay_ms);
	fflush(stdout);

	/* Rows (1)-(3) from ferryd's namespace, (4) from the client's. A short discarded run on each
	 * ferryd first, so the unix row, measured first, does not pay for the simulator's start. */
	if (ns)
		enter(nb.ns_fd[1]);
	struct figures warm = { 0 };
	int warm_iters = iters / 10 > 20 ? iters / 10 : 20;
	if (bench_ferry(main_d->uri, warm_iters, &warm) < 0 || bench_ferry(nb.d_plain.uri, warm_iters, &warm) < 0)
		fprintf(stderr, "bench: the warm-up run failed (measuring anyway)\n");
	for (int round = 0; round < NB_ROUNDS; round++) {
		if (ns)
			enter(nb.ns_fd[1]);
		measure(&rows[ROW_UNIX], main_d->uri, false, iters);
		measure(&rows[ROW_TLS], tls_uri, false, iters);
		measure(&rows[ROW_PLAIN], plain_uri, true, iters);
		if (ns) {
			enter(nb.ns_fd[0]);
			measure(&rows[ROW_VETH], veth_uri, !tls, iters);
		}
	}

	printf("\n(a) CP_NOP IB loop of `ferry bench` through libferry, %d rounds of %d iterations taken in turn\n"
	       "    (medians over the rounds): submit+wait (us), pipelined submits, wire bytes per submit\n"
	       "    over its submit+wait and pipelined phases, client->ferryd / ferryd->client\n", NB_ROUNDS, iters);
	print_rows(rows, NR_ROWS, true);

	if (vulkan) {
		int vk_iters = iters;
		vk[ROW_TLS].skip = tls_why;
		if (ns)
			enter(nb.ns_fd[1]);
		measure_vk(&vk[ROW_UNIX], cross_dir, main_d->socket, false, vk_iters);
		measure_vk(&vk[ROW_TLS], cross_dir, tls_uri, false, vk_iters);
		measure_vk(&vk[ROW_PLAIN], cross_dir, plain_uri, true, vk_iters);
		if (ns) {
			enter(nb.ns_fd[0]);
			measure_vk(&vk[ROW_VETH], cross_dir, veth_uri, !tls, vk_iters);
		}
		printf("\n(b) the e2e program's workload: tests/e2e/vk_buffer_ops --bench %d, Debian's arm64 Turnip\n"
		       "    under qemu-aarch64 through the shim (%s): vkQueueSubmit + vkWaitForFences (us),\n"
		       "    pipelined submits; wire bytes per submit over the whole program (setup included)\n",
		       vk_iters, vk_device);
		print_rows(vk, NR_ROWS, false);
	}
	printf("\nx unix = this row / the unix row of this run (latency: higher is slower; rate: lower is slower).\n"
	       "B/submit: ferryd's frame bytes (ferry_wire_*_bytes_total, both transports) over its submits\n"
	       "(ferry_submits_total); client: libferry's own count (ferry_device_wire_stats, tcp only).\n"
	       "Frame bytes: TLS records and TCP/IP headers are not counted.\n");
	ret = 0;
	for (int i = 0; i < NR_ROWS; i++)
		if ((rows[i].skip && !strcmp(rows[i].skip, "failed (see above)")) ||
		    (vulkan && vk[i].skip && !strcmp(vk[i].skip, "failed (see above)")))
			ret = 1;
out:
	if (ret && nb.d_tls.pid > 0)
		ferryd_dump_log(&nb.d_tls, 10);
	unsetenv("FERRY_TLS_CREDS");
	teardown();
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	return ret;
}
