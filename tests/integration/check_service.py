#!/usr/bin/env python3
"""ferryd as a service (docs/service.md), each case bounded and cleaning up what it starts:
  activation: sockets passed as a service manager would (LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES): a
              unix and a tcp client socket, the control socket and a tcp metrics socket, beside a
              --listen of ferryd's own; a client through each; bad passed fds refused.
  notify:     NOTIFY_SOCKET (a path and an abstract '@' name) gets READY=1 with STATUS= once
              ferryd serves, and STOPPING=1 at SIGTERM.
  metrics:    --metrics unix:PATH scraped around a known workload, parsed with prometheus_client:
              submits grow by N, histograms are consistent; 400/404/405; idle and half-sent
              connections are dropped at their deadline without stalling a GPU client.
  units:      contrib/systemd/*.{service,socket} pass `systemd-analyze verify`.
usage: check_service.py CASE FERRYD SERVICE_CLIENT SOURCE_ROOT"""
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

# Debian's python3-prometheus-client is the system interpreter's; a python3 earlier in PATH
# (pyenv) may not see it.
try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    if sys.argv[1:2] in (["metrics"], ["activation"]):
        print("SKIP: python3-prometheus-client is not installed (ci/install-deps.sh installs it)")
        sys.exit(77)
    text_string_to_metric_families = None

CASE, FERRYD, CLIENT, SRC = sys.argv[1:5]
failures = []
passes = [0]


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    passes[0] += bool(cond)
    if not cond:
        failures.append(what)
    return cond


def spawn(args, tmp, env_extra=None, pass_fds=(), names=None, listen_pid_ok=True):
    """Starts ferryd with args; pass_fds become fds 3.. with LISTEN_* set as systemd would."""
    log = open(os.path.join(tmp, "ferryd.log"), "ab")
    env = dict(os.environ)
    for k in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET"):
        env.pop(k, None)
    env.update(env_extra or {})
    # Out of the way of 3..: the child dup2s them into place.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 200) for fd in pass_fds]

    def pre():
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i)  # dup2 clears close-on-exec
    cmd = [FERRYD] + args
    if high:
        env["LISTEN_FDS"] = str(len(high))
        if names:
            env["LISTEN_FDNAMES"] = ":".join(names)
        if listen_pid_ok:
            # The shell's pid is ferryd's after exec: as systemd sets it, between fork and exec.
            cmd = ["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$0" "$@"'] + cmd
        else:
            env["LISTEN_PID"] = "1"
    p = subprocess.Popen(cmd, stdout=log, stderr=log, env=env, preexec_fn=pre, close_fds=False)
    for fd in high:
        os.close(fd)
    log.close()
    return p


def stop(p, timeout=15):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def wait_connect(family, addr, timeout=20):
    end = time.monotonic() + timeout
    while True:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(addr)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def http(family, addr, raw, timeout=10):
    s = wait_connect(family, addr)
    s.settimeout(timeout)
    s.sendall(raw)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    code = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return code, headers, body.decode()


def scrape(family, addr):
    code, headers, body = http(family, addr, b"GET /metrics HTTP/1.1\r\nHost: ferryd\r\n\r\n")
    check(code == 200, "GET /metrics -> 200 (got %d)" % code)
    check(headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
          "Content-Type text/plain; version=0.0.4 (got %r)" % headers.get("Content-Type"))
    samples = {}
    fams = {}
    for f in text_string_to_metric_families(body):
        fams[f.name] = f
        for s in f.samples:
            key = s.name + ("{%s}" % ",".join("%s=%s" % kv for kv in sorted(s.labels.items())) if s.labels else "")
            samples[key] = s.value
    return fams, samples, body


def run_client(*args, timeout=60):
    # The passed tcp sockets are served with --insecure: the client says it wants plain tcp.
    env = dict(os.environ, FERRY_INSECURE="1")
    r = subprocess.run([CLIENT] + list(args), capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout + r.stderr


def check_histogram(fams, samples, name):
    f = fams.get(name)
    if not check(f is not None and f.type == "histogram", "%s is a histogram" % name):
        return
    buckets = sorted(((float(s.labels["le"]), s.value) for s in f.samples if s.name == name + "_bucket"))
    counts = [v for _, v in buckets]
    check(buckets and buckets[-1][0] == float("inf"), "%s has a +Inf bucket" % name)
    check(counts == sorted(counts), "%s buckets are cumulative (monotonic): %r" % (name, counts))
    check(buckets and buckets[-1][1] == samples.get(name + "_count"), "%s: +Inf bucket == _count" % name)
    check(buckets[0][0] <= 0.0001 and buckets[-2][0] >= 10, "%s: buckets from <=100 us to >=10 s" % name)
    check(samples.get(name + "_sum", -1) >= 0, "%s_sum present" % name)


def case_activation(tmp):
    unix_l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix_path = os.path.join(tmp, "act.sock")
    unix_l.bind(unix_path)
    unix_l.listen(16)
    tcp_l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp_l.bind(("127.0.0.1", 0))
    tcp_l.listen(16)
    ctl_l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ctl_path = os.path.join(tmp, "act.ctl")
    ctl_l.bind(ctl_path)
    ctl_l.listen(4)
    met_l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    met_l.bind(("127.0.0.1", 0))
    met_l.listen(4)
    own = os.path.join(tmp, "own.sock")
    fds = [unix_l.fileno(), tcp_l.fileno(), ctl_l.fileno(), met_l.fileno()]
    p = spawn(["--insecure", "--listen", "unix:" + own], tmp, pass_fds=fds,
              names=["ferry", "ferry-tcp", "control", "metrics"])
    try:
        rc, out = run_client("unix:" + unix_path, "submit", "5")
        check(rc == 0, "a client through the passed unix socket runs 5 submits (%s)" % out.strip())
        rc, out = run_client("tcp:127.0.0.1:%d" % tcp_l.getsockname()[1], "query")
        check(rc == 0 and "device:" in out, "a client through the passed tcp socket: HELLO + DEVICE_QUERY (%s)" % out.strip())
        wait_connect(socket.AF_UNIX, own).close()  # ferryd's own socket is made after it started
        rc, out = run_client("unix:" + own, "submit", "2")
        check(rc == 0, "a client through ferryd's own --listen socket beside them (%s)" % out.strip())
        c = wait_connect(socket.AF_UNIX, ctl_path)
        c.sendall(b"status\n")
        reply = b""
        while True:
            b = c.recv(65536)
            if not b:
                break
            reply += b
        c.close()
        check(reply.startswith(b"ok\n") and b"submits: 7" in reply,
              "the passed control socket answers status (submits: 7)")
        fams, samples, _ = scrape(socket.AF_INET, ("127.0.0.1", met_l.getsockname()[1]))
        check(samples.get("ferry_submits_total") == 7, "passed metrics socket: ferry_submits_total 7 (got %r)" %
              samples.get("ferry_submits_total"))
        check(samples.get("ferry_connections_accepted_total{transport=tcp}", 0) >= 1,
              "a tcp connection counted")
        check(samples.get("ferry_wire_received_bytes_total{transport=tcp}", 0) > 0 and
              samples.get("ferry_wire_sent_bytes_total{transport=tcp}", 0) > 0, "tcp wire bytes counted both ways")
        check(samples.get("ferry_wire_received_bytes_total{transport=unix}", 0) >
              samples.get("ferry_wire_received_bytes_total{transport=tcp}", 0), "unix wire bytes counted")
    finally:
        rc = stop(p)
    check(rc == 0, "ferryd exits 0 on SIGTERM (%r)" % rc)
    check(os.path.exists(unix_path) and os.path.exists(ctl_path), "passed socket files are left to their owner")
    check(not os.path.exists(own), "ferryd's own socket file is removed")
    for s in (unix_l, tcp_l, ctl_l, met_l):
        s.close()

    # What a service manager must not hand over: refused with a reason, nothing served.
    def refused(what, fd_sock, names, args, needle, pid_ok=True):
        open(os.path.join(tmp, "ferryd.log"), "w").close()
        p = spawn(args + ["--socket", os.path.join(tmp, "x.sock")], tmp, pass_fds=[fd_sock.fileno()], names=names,
                  listen_pid_ok=pid_ok)
        try:
            rc = p.wait(20)
        except subprocess.TimeoutExpired:
            rc = stop(p)
        log = open(os.path.join(tmp, "ferryd.log")).read()
        check(rc == 1 and needle in log, "%s: exit 1 saying '%s' (rc %r)" % (what, needle, rc))
        fd_sock.close()

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    refused("a socket that does not listen", s, ["ferry"], [], "not a listening stream socket")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    refused("a tcp socket without --tls-creds or --insecure", s, ["ferry-tcp"], [], "--insecure")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    refused("a tcp control socket", s, ["control"], ["--insecure"], "must be a unix socket")
    # LISTEN_PID of another process: the fds are not ours; ferryd serves its own socket.
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    p = spawn(["--socket", os.path.join(tmp, "y.sock")], tmp, pass_fds=[s.fileno()], names=["ferry"], listen_pid_ok=False)
    try:
        wait_connect(socket.AF_UNIX, os.path.join(tmp, "y.sock")).close()
        rc, out = run_client("unix:" + os.path.join(tmp, "y.sock"), "query")
        check(rc == 0, "LISTEN_PID not ours: ignored, ferryd serves its --socket")
    finally:
        check(stop(p) == 0, "and exits 0")
    s.close()


def notify_case(tmp, abstract):
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if abstract:
        name = "ferry-test-notify-%d" % os.getpid()
        d.bind("\0" + name)
        addr = "@" + name
    else:
        addr = os.path.join(tmp, "notify.sock")
        d.bind(addr)
    d.settimeout(30)
    sock = os.path.join(tmp, "n%d.sock" % abstract)
    p = spawn(["--socket", sock], tmp, env_extra={"NOTIFY_SOCKET": addr})
    kind = "abstract" if abstract else "path"
    try:
        msg = d.recv(4096).decode()
        check("READY=1" in msg.split("\n"), "%s NOTIFY_SOCKET: READY=1 (%r)" % (kind, msg))
        check(any(l.startswith("STATUS=serving ") for l in msg.split("\n")), "%s: a STATUS= line" % kind)
        check("MAINPID=%d" % p.pid in msg, "%s: MAINPID is ferryd's" % kind)
        rc, out = run_client("unix:" + sock, "query")
        check(rc == 0, "%s: serving once READY=1 came" % kind)
        p.send_signal(signal.SIGTERM)
        msg = d.recv(4096).decode()
        check("STOPPING=1" in msg.split("\n"), "%s: STOPPING=1 at SIGTERM (%r)" % (kind, msg))
    finally:
        check(stop(p) == 0, "%s: ferryd exits 0" % kind)
        d.close()


def case_notify(tmp):
    notify_case(tmp, False)
    notify_case(tmp, True)
    # --ready-fd still works beside it.
    r, w = os.pipe()
    p = subprocess.Popen([FERRYD, "--socket", os.path.join(tmp, "r.sock"), "--ready-fd", str(w)], pass_fds=[w],
                         stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        check(os.read(r, 1) == b"\x01", "--ready-fd still gets its byte")
    finally:
        os.close(r)
        check(stop(p) == 0, "and ferryd exits 0")


def case_metrics(tmp):
    msock = os.path.join(tmp, "metrics.sock")
    csock = os.path.join(tmp, "c.sock")
    # A non-loopback tcp address is refused (the counters describe the server's clients).
    r = subprocess.run([FERRYD, "--socket", os.path.join(tmp, "z.sock"), "--metrics", "tcp:0.0.0.0:0"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "not a loopback address" in r.stderr, "--metrics tcp:0.0.0.0:0 refused")
    p = spawn(["--socket", csock, "--metrics", "unix:" + msock], tmp)
    A = (socket.AF_UNIX, msock)
    try:
        wait_connect(socket.AF_UNIX, csock).close()
        fams, before, body = scrape(*A)
        for name in ("ferry_clients", "ferry_contexts", "ferry_queues", "ferry_bos", "ferry_bo_bytes"):
            check(fams.get(name) is not None and fams[name].type == "gauge", "%s is a gauge" % name)
        for name in ("ferry_submits", "ferry_fences_signaled", "ferry_validation_refusals", "ferry_faults",
                     "ferry_hangs", "ferry_watchdog_dumps", "ferry_unmodeled_work", "ferry_wire_received_bytes",
                     "ferry_wire_sent_bytes", "ferry_connections_accepted", "ferry_connections_refused"):
            check(fams.get(name) is not None and fams[name].type == "counter", "%s_total is a counter" % name)
        check(body.count("# HELP ") == body.count("# TYPE ") >= 20, "HELP and TYPE for every family")
        N = 25
        rc, out = run_client("unix:" + csock, "submit", str(N))
        check(rc == 0, "workload of %d submits (%s)" % (N, out.strip()))
        # The client's hang-up and the scrape race in ferryd's loop: wait for the former.
        end = time.monotonic() + 10
        while True:
            fams, after, _ = scrape(*A)
            if after.get("ferry_clients") == 0 or time.monotonic() > end:
                break
            time.sleep(0.05)
        d = lambda k: after.get(k, 0) - before.get(k, 0)
        check(d("ferry_submits_total") == N, "ferry_submits_total grew by %d (%r)" % (N, d("ferry_submits_total")))
        check(d("ferry_fences_signaled_total") == N, "ferry_fences_signaled_total grew by %d" % N)
        check(d("ferry_submit_latency_seconds_count") == N, "submit latency histogram counted %d" % N)
        # A unix client waits on its fence page, not with FENCE_WAIT: that histogram may stay flat.
        check(d("ferry_fence_wait_latency_seconds_count") >= 0, "fence-wait histogram never goes back")
        check(d("ferry_connections_accepted_total{transport=unix}") == 1, "one unix connection accepted")
        check(d("ferry_wire_received_bytes_total{transport=unix}") > 0 and
              d("ferry_wire_sent_bytes_total{transport=unix}") > 0, "unix wire bytes both ways")
        check(after.get("ferry_faults_total") == 0 and after.get("ferry_hangs_total") == 0, "no faults, no hangs")
        check(after.get("ferry_clients") == 0, "the client is gone again")
        for h in ("ferry_submit_latency_seconds", "ferry_fence_wait_latency_seconds"):
            check_histogram(fams, after, h)

        for raw, want, what in ((b"GET /nope HTTP/1.1\r\n\r\n", 404, "an unknown path"),
                                (b"GET /metricsX HTTP/1.1\r\n\r\n", 404, "a longer path"),
                                (b"hello\r\n\r\n", 400, "garbage"),
                                (b"GET /metrics SMTP/1.0\r\n\r\n", 400, "not HTTP/1.x"),
                                (b"GET  /metrics HTTP/1.1\r\n\r\n", 400, "two spaces"),
                                (b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, "POST"),
                                (b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 8000 + b"\r\n\r\n", 431, "8 KB of headers")):
            try:
                code, _, _ = http(*A, raw)
            except OSError as e:
                code = str(e)
            check(code == want, "%s -> %d (got %r)" % (what, want, code))
        code, headers, body = http(*A, b"HEAD /metrics HTTP/1.0\n\n")
        check(code == 200 and body == "" and int(headers.get("Content-Length", 0)) > 0, "HEAD: headers only")

        # Idle and half-sent metrics connections: GPU clients are served meanwhile; the
        # connections are dropped at their deadline (5 s); over the cap they are refused at once.
        idle = []
        for i in range(8):
            s = wait_connect(*A)
            if i % 2:
                s.sendall(b"GET /met")
            idle.append(s)
        time.sleep(0.2)
        extra = wait_connect(*A)
        extra.settimeout(5)
        check(extra.recv(4096).startswith(b"HTTP/1.1 503"), "a 9th metrics connection gets 503 at once")
        extra.close()
        t0 = time.monotonic()
        rc, out = run_client("unix:" + csock, "submit", "20")
        took = time.monotonic() - t0
        check(rc == 0 and took < 4, "20 submits while 8 metrics connections idle: %.2f s" % took)
        for s in idle:
            s.settimeout(15)
        t1 = time.monotonic()
        gone = 0
        for s in idle:
            try:
                b = s.recv(4096)
                gone += b == b""
            except (socket.timeout, OSError):
                pass
            s.close()
        waited = time.monotonic() - t1 + (t1 - t0)
        check(gone == 8, "idle metrics connections dropped at their deadline (%d of 8, %.1f s)" % (gone, waited))
        fams, after2, _ = scrape(*A)
        check(after2.get("ferry_metrics_dropped_total", 0) >= 9, "ferry_metrics_dropped_total counts them (%r)" %
              after2.get("ferry_metrics_dropped_total"))
        check(after2.get("ferry_submits_total") - after.get("ferry_submits_total") == 20, "and the 20 submits counted")
    finally:
        rc = stop(p)
    check(rc == 0, "ferryd exits 0 (%r)" % rc)
    check(not os.path.exists(msock), "its metrics socket file is removed")


def case_units(tmp):
    sa = shutil.which("systemd-analyze")
    if not sa:
        print("SKIP: systemd-analyze is not installed (Debian's systemd package; ci/install-deps.sh installs it)")
        sys.exit(77)
    units = os.path.join(SRC, "contrib", "systemd")
    names = sorted(f for f in os.listdir(units) if f.endswith((".service", ".socket")))
    check(len(names) >= 4, "units found: %s" % names)
    # Verified as installed, with ExecStart naming the ferryd just built (verify checks it is
    # an executable) instead of /usr/bin/ferryd.
    for f in names:
        text = open(os.path.join(units, f)).read()
        open(os.path.join(tmp, f), "w").write(text.replace("/usr/bin/ferryd", os.path.abspath(FERRYD)))
    env = dict(os.environ, SYSTEMD_LOG_LEVEL="notice")
    r = subprocess.run([sa, "verify", "--man=no", "--recursive-errors=no"] + [os.path.join(tmp, f) for f in names],
                       capture_output=True, text=True, timeout=60, env=env, cwd=tmp)
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0 and ("Failed to connect" in out or "Failed to initialize" in out or "System has not been booted" in out):
        print("SKIP: systemd-analyze cannot run in this container: %s" % out[:300])
        sys.exit(77)
    check(r.returncode == 0 and not out, "systemd-analyze verify is clean (rc %d): %s" % (r.returncode, out or "(nothing)"))
    svc = open(os.path.join(units, "ferryd.service")).read()
    for want in ("Type=notify", "DeviceAllow=char-drm rw", "SupplementaryGroups=render", "ProtectSystem=strict"):
        check(want in svc, "ferryd.service has %s" % want)
    for f, name in (("ferryd.socket", "ferry"), ("ferryd-tcp.socket", "ferry-tcp"), ("ferryd-control.socket", "control"),
                    ("ferryd-metrics.socket", "metrics")):
        check("FileDescriptorName=%s\n" % name in open(os.path.join(units, f)).read(), "%s names its fd %s" % (f, name))


def main():
    tmp = tempfile.mkdtemp(prefix="ferry-svc-")
    try:
        {"activation": case_activation, "notify": case_notify, "metrics": case_metrics, "units": case_units}[CASE](tmp)
    finally:
        log = os.path.join(tmp, "ferryd.log")
        if failures and os.path.exists(log):
            print("--- ferryd log ---\n" + open(log, errors="replace").read()[-4000:])
        shutil.rmtree(tmp, ignore_errors=True)
    print("service %s: %d passed, %d failed" % (CASE, passes[0], len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
