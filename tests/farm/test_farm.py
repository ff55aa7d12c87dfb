#!/usr/bin/env python3
"""A farm of three boards behind HAProxy: three ferryds, each in its own network namespace,
reached over a veth pair from a fourth namespace where HAProxy runs the shipped config
(contrib/haproxy/ferry-farm.cfg, with these addresses) and the clients run. 24 clients connect
through HAProxy; one ferryd is SIGKILLed mid-run: its clients must see the error within a second
and none may hang, the others finish; clients started afterwards all land on the two boards left.
HAProxy's health check (ferry's handshake) must find every live board up. Everything this test
makes (processes, namespaces, veths, files) is removed at the end, also on failure or timeout."""
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

FERRYD, FERRY, CLIENT, CFG = sys.argv[1:5]
MODE = os.environ.get("FERRY_FARM_CLIENT_MODE", "submit")  # real jobs: a BO the GPU writes, read back
# TLS passed through (the config's documented TLS line, certificates made with certtool), the
# default; FERRY_FARM_TLS=0 runs the plain variant, =auto takes TLS when this ferryd has it.
TLS_WANT = os.environ.get("FERRY_FARM_TLS", "1")
FARM_NAME = "farm.test"  # the name clients use, in every board's certificate
PORT = 7001
NBOARDS, NCLIENTS, NLATE, NFAST = 3, 24, 12, 6

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures += 1
    return cond


def run(*cmd):
    subprocess.run(cmd, check=True, timeout=15, stdout=subprocess.DEVNULL)


class Farm:
    def __init__(self):
        tag = "ff%d" % (os.getpid() % 100000)
        self.lb = tag + "-lb"
        self.boards = ["%s-b%d" % (tag, i + 1) for i in range(NBOARDS)]
        self.veths = [("%sl%d" % (tag, i + 1), "%sb%d" % (tag, i + 1)) for i in range(NBOARDS)]
        self.namespaces = []
        self.procs = []  # (name, Popen): stopped at the end, whatever happened
        self.tmp = tempfile.mkdtemp(prefix="ferry-farm-")
        self.ferryds = []
        self.haproxy = None
        self.tls = False
        self.etc_netns = None  # /etc/netns/<lb>: the farm's name for the clients' namespace

    def certtool(self, name, ca, template):
        """A key and a certificate NAME signed by CA (None: a self-signed CA), in self.pki."""
        t = os.path.join(self.pki, name + ".tmpl")
        with open(t, "w") as f:
            f.write(template + "expiration_days = 2\n")
        key, cert = (os.path.join(self.pki, name + s) for s in ("-key.pem", "-cert.pem"))
        run("certtool", "--generate-privkey", "--key-type=ecdsa", "--outfile", key)
        if ca is None:
            run("certtool", "--generate-self-signed", "--load-privkey", key, "--template", t, "--outfile", cert)
        else:
            run("certtool", "--generate-certificate", "--load-privkey", key, "--load-ca-certificate",
                os.path.join(self.pki, ca + "-cert.pem"), "--load-ca-privkey", os.path.join(self.pki, ca + "-key.pem"),
                "--template", t, "--outfile", cert)
        return key, cert

    def make_pki(self):
        """QEMU's x509 layout for each board (its own key; a certificate for the farm's name and
        its own address), one for the clients, and the health checker's cert+key for HAProxy."""
        self.pki = os.path.join(self.tmp, "pki")
        os.mkdir(self.pki)
        self.certtool("ca", None, "cn = ferry farm test CA\nca\ncert_signing_key\n")
        ca = os.path.join(self.pki, "ca-cert.pem")
        self.board_creds = []
        for i in range(NBOARDS):
            key, cert = self.certtool("board%d" % (i + 1), "ca",
                                      "cn = %s\ndns_name = %s\ndns_name = board%d.%s\nip_address = %s\n"
                                      "tls_www_server\nsigning_key\nencryption_key\n"
                                      % (FARM_NAME, FARM_NAME, i + 1, FARM_NAME, self.addr(i, 2)))
            d = os.path.join(self.tmp, "b%d-tls" % (i + 1))
            os.mkdir(d)
            shutil.copy(ca, os.path.join(d, "ca-cert.pem"))
            shutil.copy(cert, os.path.join(d, "server-cert.pem"))
            shutil.copy(key, os.path.join(d, "server-key.pem"))
            self.board_creds.append(d)
        key, cert = self.certtool("client", "ca", "cn = farm client\ntls_www_client\nsigning_key\n")
        self.client_creds = os.path.join(self.tmp, "client-tls")
        os.mkdir(self.client_creds)
        shutil.copy(ca, os.path.join(self.client_creds, "ca-cert.pem"))
        shutil.copy(cert, os.path.join(self.client_creds, "client-cert.pem"))
        shutil.copy(key, os.path.join(self.client_creds, "client-key.pem"))
        key, cert = self.certtool("checker", "ca", "cn = haproxy health check\ntls_www_client\nsigning_key\n")
        self.checker_pem = os.path.join(self.pki, "checker.pem")
        with open(self.checker_pem, "w") as out:
            for part in (cert, key):
                with open(part) as f:
                    out.write(f.read())
        self.ca = ca
        # `ip netns exec` bind-mounts /etc/netns/<ns>/hosts over /etc/hosts: the farm's name
        # resolves to HAProxy's address for the clients only.
        self.etc_netns = os.path.join("/etc/netns", self.lb)
        os.makedirs(self.etc_netns)
        with open(os.path.join(self.etc_netns, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost %s\n" % FARM_NAME)

    def addr(self, i, side):
        return "10.213.%d.%d" % (i + 1, side)

    def netns(self):
        run("ip", "netns", "add", self.lb)
        self.namespaces.append(self.lb)
        run("ip", "-n", self.lb, "link", "set", "lo", "up")
        for i, b in enumerate(self.boards):
            run("ip", "netns", "add", b)
            self.namespaces.append(b)
            run("ip", "-n", b, "link", "set", "lo", "up")
            lv, bv = self.veths[i]
            run("ip", "link", "add", lv, "type", "veth", "peer", "name", bv)
            run("ip", "link", "set", lv, "netns", self.lb)
            run("ip", "link", "set", bv, "netns", b)
            run("ip", "-n", self.lb, "addr", "add", self.addr(i, 1) + "/24", "dev", lv)
            run("ip", "-n", self.lb, "link", "set", lv, "up")
            run("ip", "-n", b, "addr", "add", self.addr(i, 2) + "/24", "dev", bv)
            run("ip", "-n", b, "link", "set", bv, "up")

    def spawn(self, name, ns, cmd, **kw):
        p = subprocess.Popen(["ip", "netns", "exec", ns] + cmd, **kw)
        self.procs.append((name, p))
        return p

    def control(self, i):
        return os.path.join(self.tmp, "b%d.ctl" % (i + 1))

    def start_ferryds(self):
        for i, b in enumerate(self.boards):
            log = open(os.path.join(self.tmp, "b%d.log" % (i + 1)), "w")
            sec = ["--tls-creds", self.board_creds[i]] if self.tls else ["--insecure"]
            p = self.spawn("ferryd b%d" % (i + 1), b,
                           [FERRYD, "--listen", "tcp:%s:%d" % (self.addr(i, 2), PORT)] + sec +
                           ["--control", self.control(i)], stderr=log, stdout=log)
            log.close()
            self.ferryds.append(p)
        deadline = time.monotonic() + 20
        for i in range(NBOARDS):
            while self.clients_on(i) is None:
                if time.monotonic() > deadline or self.ferryds[i].poll() is not None:
                    raise RuntimeError("ferryd b%d did not come up" % (i + 1))
                time.sleep(0.05)
            # `ip netns exec` execs: the pid is ferryd's own, so SIGKILL reaches it.
            with open("/proc/%d/comm" % self.ferryds[i].pid) as f:
                assert f.read().strip() == "ferryd"

    def clients_on(self, i):
        r = subprocess.run([FERRY, "status", "--control", self.control(i)], capture_output=True,
                           text=True, timeout=10)
        m = re.search(r"^clients: (\d+)$", r.stdout, re.M)
        return int(m.group(1)) if r.returncode == 0 and m else None

    def count_clients(self, boards, want):
        """Clients per board (0 for those not asked); sampled again while the sum is off, since a
        health probe in flight counts as a client for its millisecond."""
        for _ in range(20):
            counts = [self.clients_on(i) or 0 if i in boards else 0 for i in range(NBOARDS)]
            if sum(counts) == want:
                break
            time.sleep(0.05)
        return counts

    def start_haproxy(self):
        with open(CFG) as f:
            text = f.read()
        text = re.sub(r"^    server board.*\n", "", text, flags=re.M)
        servers = "".join("    server board%d %s:%d\n" % (i + 1, self.addr(i, 2), PORT)
                          for i in range(NBOARDS))
        text = text.replace("default_backend ferry_boards", "default_backend ferry_boards", 1)
        if self.tls:
            # The config's documented TLS line, with this test's files and name.
            m = re.search(r"^#   (default-server check check-ssl .*)$", text, re.M)
            line = m.group(1).replace("/etc/ferry/farm/ca-cert.pem", self.ca)
            line = line.replace("/etc/ferry/farm/checker.pem", self.checker_pem)
            line = line.replace("farm.example", FARM_NAME)
            text = re.sub(r"^    default-server .*$", lambda _: "    " + line, text, count=1, flags=re.M)
        text = re.sub(r"^(    default-server .*\n)", lambda m: m.group(1) + servers, text, flags=re.M)
        text = text.replace("bind :7000", "bind 127.0.0.1:7000")
        text = text.replace("inter 2s", "inter 300ms")  # the test's pace, not a farm's
        # Without "timeout check" a probe is cut at its interval: 300 ms, which a TLS handshake
        # with a sanitized ferryd on a loaded machine can outlast (logged as a failed handshake).
        assert "    timeout connect 2s\n" in text
        text = text.replace("    timeout connect 2s\n", "    timeout connect 2s\n    timeout check 5s\n", 1)
        self.stats = os.path.join(self.tmp, "stats.sock")
        text = text.replace("    maxconn 4096\n", "    maxconn 4096\n    stats socket %s\n" % self.stats)
        cfg = os.path.join(self.tmp, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write(text)
        log = open(os.path.join(self.tmp, "haproxy.log"), "w")
        self.haproxy = self.spawn("haproxy", self.lb, ["haproxy", "-db", "-f", cfg], stdout=log, stderr=log)
        log.close()

    def server_states(self):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(5)
            s.connect(self.stats)
            s.sendall(b"show stat\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
        except OSError:
            return {}
        lines = data.decode().splitlines()
        if not lines:
            return {}
        head = lines[0].lstrip("# ").split(",")
        out = {}
        for l in lines[1:]:
            row = dict(zip(head, l.split(",")))
            if row.get("pxname") == "ferry_boards" and row.get("svname", "").startswith("board"):
                out[row["svname"]] = (row["status"], row["check_status"])
        return out

    def wait_states(self, want, timeout):
        deadline = time.monotonic() + timeout
        while True:
            st = self.server_states()
            if all(st.get(k, ("", ""))[0] == v for k, v in want.items()):
                return st
            if time.monotonic() > deadline:
                return st
            time.sleep(0.1)

    def clients(self, n, hold_ms):
        env = dict(os.environ)
        if self.tls:
            env["FERRY_TLS_CREDS"] = self.client_creds
            env.pop("FERRY_INSECURE", None)
            uri = "tcp:%s:7000" % FARM_NAME
        else:
            env["FERRY_INSECURE"] = "1"  # the boards serve plain tcp (--insecure)
            uri = "tcp:127.0.0.1:7000"
        return [self.spawn("client", self.lb, [CLIENT, uri, MODE, str(hold_ms)], env=env,
                           stdout=subprocess.PIPE, text=True) for _ in range(n)]

    def cleanup(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
            if p.stdout:
                p.stdout.close()
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], timeout=15)  # takes its veth end along
        if self.etc_netns:
            shutil.rmtree(self.etc_netns, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


def wait_ready(procs, timeout):
    """The READY line of each client (None for one that said something else or nothing)."""
    out = [None] * len(procs)
    deadline = time.monotonic() + timeout
    for i, p in enumerate(procs):
        left = deadline - time.monotonic()
        if left > 0 and select.select([p.stdout], [], [], left)[0]:
            line = p.stdout.readline().strip()
            out[i] = line if line.startswith("READY") else None
            if not out[i]:
                print("client %d: %s" % (i, line))
    return out


def finish(procs, timeout):
    """(exit status, last line) of each client; a client still running at the deadline hangs."""
    res = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            rest, _ = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            rest, _ = p.communicate()
            res.append(("hung", rest.strip()))
            continue
        lines = [l for l in rest.splitlines() if l.strip()]
        res.append((p.returncode, lines[-1] if lines else ""))
    return res


def tls_available():
    help_text = subprocess.run([FERRYD, "--help"], capture_output=True, text=True, timeout=10)
    return "--tls-creds" in help_text.stdout + help_text.stderr and shutil.which("certtool") is not None


def farm_test(farm):
    farm.tls = TLS_WANT == "1" or (TLS_WANT == "auto" and tls_available())
    print("variant: %s" % ("TLS passed through (certificates for %s)" % FARM_NAME if farm.tls
                           else "plain tcp (ferryd --insecure)"), flush=True)
    farm.netns()
    if farm.tls:
        farm.make_pki()
    farm.start_ferryds()
    farm.start_haproxy()
    up = {"board%d" % (i + 1): "UP" for i in range(NBOARDS)}
    st = farm.wait_states(up, 10)
    # Only a check that succeeded says L7OK: the probe's HELLO got a HelloReply.
    deadline = time.monotonic() + 10
    while not all(st.get(k, ("", ""))[1] == "L7OK" for k in up) and time.monotonic() < deadline:
        time.sleep(0.1)
        st = farm.server_states()
    check(all(st.get(k, ("", ""))[1] == "L7OK" for k in up),
          "HAProxy's ferry handshake check finds all %d boards up: %s" % (NBOARDS, st))

    procs = farm.clients(NCLIENTS, 4000)
    ready = wait_ready(procs, 20)
    modes = sorted(set(r.split()[1] for r in ready if r))
    check(all(ready), "%d clients connected through HAProxy (jobs: %s)" % (NCLIENTS, ",".join(modes)))
    counts = farm.count_clients(range(NBOARDS), NCLIENTS)
    print("clients per board: %s" % counts)
    check(sum(counts) == NCLIENTS and max(counts) - min(counts) <= 2,
          "leastconn spreads them evenly")

    time.sleep(0.5)
    victim = 1
    on_victim = counts[victim]
    t_kill = time.monotonic_ns()
    farm.ferryds[victim].kill()
    farm.ferryds[victim].wait(timeout=5)
    # At once, before the health check can have noticed: leastconn now sees the dead board as
    # the emptiest, so these connects go there first, are refused, and must be redispatched.
    state = farm.server_states().get("board%d" % (victim + 1), ("?", "?"))
    fast = farm.clients(NFAST, 500)
    res = finish(procs, 20)
    lost = [r for r in res if r[0] == 3]
    done = [r for r in res if r[0] == 0]
    other = [r for r in res if r[0] not in (0, 3)]
    delays = []
    for status, line in lost:
        f = line.split(" ", 5)
        delays.append((int(f[1]) - t_kill) / 1e6)
        check("connection to the server" in f[5] and "was lost" in f[5],
              "lost client's error: %s (errno %s)" % (f[5], f[3]))
        if f[4] != "-1":  # it had a context (submit mode): the context must count as lost
            check(f[4] == "1", "its context counts as lost")
    delays.sort()
    print("kill -> error per affected client (ms): %s" % ", ".join("%.1f" % d for d in delays))
    check(len(lost) == on_victim, "the %d clients of the killed board saw the error (%d did)" % (on_victim, len(lost)))
    check(all(0 <= d < 1000 for d in delays), "each within a second (max %.1f ms)" % (max(delays) if delays else -1))
    print("jobs done: %d by the finished clients, %d by the lost ones before the kill" %
          (sum(int(r[1].split()[1]) for r in done if r[1].startswith("DONE")),
           sum(int(r[1].split()[2]) for r in lost)))
    check(len(done) == NCLIENTS - on_victim and not other,
          "the other %d clients finished their work (%d did; others: %s)" % (NCLIENTS - on_victim, len(done), other))

    res_fast = finish(fast, 20)
    check(all(r[0] == 0 for r in res_fast),
          "%d clients started right after the kill (HAProxy's view of the board then: %s) connected "
          "elsewhere and finished: %s" % (NFAST, state[0], [r for r in res_fast if r[0] != 0]))

    st = farm.wait_states({"board%d" % (victim + 1): "DOWN"}, 5)
    check(st.get("board%d" % (victim + 1), ("", ""))[0] == "DOWN", "HAProxy marked the dead board down: %s" % st)

    late = farm.clients(NLATE, 3000)
    ready = wait_ready(late, 20)
    check(all(ready), "%d clients started afterwards connected" % NLATE)
    counts = farm.count_clients([i for i in range(NBOARDS) if i != victim], NLATE)
    print("late clients per board: %s" % counts)
    check(sum(counts) == NLATE, "all %d landed on the two boards left" % NLATE)
    res = finish(late, 20)
    check(all(r[0] == 0 for r in res), "and finished their work: %s" % [r for r in res if r[0] != 0])

    # The health probes (HELLO, then close) cost the boards no log lines at the default level.
    for i in range(NBOARDS):
        if i == victim:
            continue
        with open(os.path.join(farm.tmp, "b%d.log" % (i + 1))) as f:
            noise = [l for l in f if "(--insecure)" not in l]  # the startup warning
        check(not noise, "board %d logged nothing for the health probes: %s" % (i + 1, noise[:3]))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (ip netns, veth)")
        return 77
    for tool in ("ip", "haproxy"):
        if not shutil.which(tool):
            print("SKIP: no %s (ci/install-deps.sh installs it)" % tool)
            return 77
    # meson's timeout sends SIGTERM: clean up then too.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    farm = Farm()
    try:
        farm_test(farm)
    except Exception as e:  # a setup failure is a test failure, after the cleanup
        check(False, "farm test raised %r" % e)
    finally:
        if failures:
            for name in ["haproxy.log"] + ["b%d.log" % (i + 1) for i in range(NBOARDS)]:
                try:
                    with open(os.path.join(farm.tmp, name)) as f:
                        print("--- %s (tail)\n%s" % (name, "".join(f.readlines()[-15:])))
                except OSError:
                    pass
        farm.cleanup()
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    check(farm.lb not in left and not any(b in left for b in farm.boards), "namespaces removed")
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
