#!/usr/bin/env python3
"""One end-to-end case: Debian's arm64 Mesa under qemu-aarch64 with ferry's LD_PRELOAD library.

--mode shim:       starts ferryd (x86-64) on a private socket with --gpu, preloads
                   libferry-shim.so, and checks ferryd exits cleanly afterwards.
--mode fakekernel: preloads libferry-fakekernel.so (the simulated kernel in process, FERRY_GPU):
                   the native baseline, no ferryd.
The program's output must contain every --expect string, match no --reject-re, and it must exit 0
(or --expect-exit).
--env K=V sets a variable for the program (TU_DEBUG=gmem ...); @TMP@ in the program's arguments,
--env values and the --output options is the case's private temporary directory; @QEMU@ in the
program's arguments is the qemu-aarch64 command line (library and settings) the case runs with.
--baseline CMD (one shell-quoted string) runs a second arm64 program under plain qemu-aarch64, with
no ferry library at all, and --output FILE of the program must then equal --baseline-output FILE
byte for byte (e.g. a GStreamer pipeline with and without its Vulkan elements).
--transport tcp-tls: shim mode over tcp instead of the unix socket: a CA, a server and a client
                   certificate and a token made with certtool in the case's temp dir; ferryd gets
                   a listening socket on 127.0.0.1 by socket activation (LISTEN_FDS; bound here, so
                   no port race), --tls-creds and --auth-tokens, --log-level info; the program gets
                   FERRY_SOCKET=tcp:..., FERRY_TLS_CREDS (the CA and the client's certificate) and
                   FERRY_AUTH_TOKEN_FILE. ferryd's log must show the client authenticated by its
                   certificate and the bytes that crossed the wire (printed).
--sim-strict:      work the simulator does not execute fails its job (ferryd --sim-strict, or
                   FERRY_SIM_STRICT=1 for the fake kernel) instead of being counted and warned
                   about, so a case cannot pass on skipped work."""
import argparse
import shlex
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ICD = {
    "msm": "/usr/share/vulkan/icd.d/freedreno_icd.aarch64.json",
    "v3d": "/usr/share/vulkan/icd.d/broadcom_icd.aarch64.json",
}


def first_difference(x, y):
    n = min(len(x), len(y))
    for i in range(0, n, 4096):
        if x[i:i + 4096] != y[i:i + 4096]:
            return next(j for j in range(i, min(i + 4096, n)) if x[j] != y[j])
    return n if len(x) != len(y) else None


def compare_with_baseline(a, env, tmp):
    """Runs the baseline (no ferry library, no GPU) and compares the two output files."""
    cmd = ["qemu-aarch64", "-L", "/"] + [p.replace("@TMP@", tmp) for p in shlex.split(a.baseline)]
    base_env = dict(env)
    base_env.pop("LD_PRELOAD", None)
    try:
        p = subprocess.run(cmd, env=base_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=a.timeout, text=True)
    except subprocess.TimeoutExpired:
        print(f"e2e: the baseline timed out after {a.timeout} s")
        return False
    if p.returncode != 0:
        print(f"e2e: the baseline exited {p.returncode}:\n{p.stdout}")
        return False
    paths = [a.output.replace("@TMP@", tmp), a.baseline_output.replace("@TMP@", tmp)]
    data = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                data.append(f.read())
        except OSError as e:
            print(f"e2e: cannot read {path}: {e}")
            return False
    out, base = data
    if not base:
        print("e2e: the baseline wrote nothing: nothing to compare")
        return False
    d = first_difference(out, base)
    if d is not None:
        diff = sum(1 for i in range(min(len(out), len(base))) if out[i] != base[i])
        got = out[d] if d < len(out) else None
        want = base[d] if d < len(base) else None
        print(f"e2e: output differs from the baseline: {len(out)} vs {len(base)} bytes, first "
              f"difference at byte {d} (want {want if want is None else hex(want)}, got "
              f"{got if got is None else hex(got)}), {diff} differing bytes in the common part")
        return False
    print(f"e2e: output equals the baseline, all {len(base)} bytes")
    return True


def make_tls_creds(tmp):
    """The CA, server and client certificates (certtool, as tests/integration/itest_certs.c makes
    them), ferryd's credential dir, the client's, and a token file for each side."""
    def cert(name, ca, tmpl):
        with open(os.path.join(tmp, name + ".tmpl"), "w") as f:
            f.write(tmpl)
        cmd = [["certtool", "--generate-privkey", "--key-type=ecdsa", "--outfile", name + "-key.pem"]]
        if ca:
            cmd.append(["certtool", "--generate-certificate", "--load-privkey", name + "-key.pem",
                        "--load-ca-certificate", ca + "-cert.pem", "--load-ca-privkey", ca + "-key.pem",
                        "--template", name + ".tmpl", "--outfile", name + "-cert.pem"])
        else:
            cmd.append(["certtool", "--generate-self-signed", "--load-privkey", name + "-key.pem",
                        "--template", name + ".tmpl", "--outfile", name + "-cert.pem"])
        for c in cmd:
            subprocess.run(c, cwd=tmp, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cert("ca", None, "cn = ferry e2e CA\nca\ncert_signing_key\nexpiration_days = 2\n")
    cert("server", "ca", "cn = localhost\ndns_name = localhost\nip_address = 127.0.0.1\n"
         "tls_www_server\nsigning_key\nencryption_key\nexpiration_days = 2\n")
    cert("client", "ca", "cn = e2e client\ntls_www_client\nsigning_key\nexpiration_days = 2\n")
    srv, cli = os.path.join(tmp, "srv"), os.path.join(tmp, "client")
    os.mkdir(srv)
    os.mkdir(cli)
    for src, dst in (("ca-cert.pem", srv), ("server-cert.pem", srv), ("server-key.pem", srv),
                     ("ca-cert.pem", cli)):
        shutil.copy(os.path.join(tmp, src), dst)
    shutil.copy(os.path.join(tmp, "client-cert.pem"), os.path.join(cli, "client-cert.pem"))
    shutil.copy(os.path.join(tmp, "client-key.pem"), os.path.join(cli, "client-key.pem"))
    token = "e2e-" + os.urandom(12).hex()
    for name in ("tokens", "token"):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(token + "\n")
    return srv, cli, os.path.join(tmp, "tokens"), os.path.join(tmp, "token")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ferryd", required=True)
    ap.add_argument("--cross-dir", required=True, help="the aarch64 build dir (shim, programs)")
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--mode", choices=["shim", "fakekernel"], required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expect-re", action="append", default=[], help="a regular expression a line must match")
    ap.add_argument("--expect-ferryd-warn", action="append", default=[],
                    help="a regular expression: ferryd must log a warning matching it (and such warnings are no failure)")
    ap.add_argument("--reject-re", action="append", default=[],
                    help="a regular expression no line of the output may match")
    ap.add_argument("--expect-exit", default="0",
                    help="the program's exit status: a number, or 'nonzero' (default 0)")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="an environment variable for the program")
    ap.add_argument("--ferryd-arg", action="append", default=[],
                    help="one more ferryd argument (e.g. --ferryd-arg=--log-level=debug)")
    ap.add_argument("--ferryd-fakekernel", metavar="LIB",
                    help="shim mode: ferryd serves /dev/dri/renderD128 through its render-node kdev, the "
                         "node being this (x86-64) libferry-fakekernel.so preloaded into it, simulating --gpu")
    ap.add_argument("--output", help="file the program writes, compared with --baseline-output")
    ap.add_argument("--baseline", help="command whose --baseline-output the --output must equal")
    ap.add_argument("--baseline-output")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--stop-after", type=float, default=0,
                    help="send the program SIGTERM after this many seconds (a server), then wait --timeout")
    ap.add_argument("--transport", choices=["unix", "tcp-tls"], default="unix",
                    help="shim mode: how the shim reaches ferryd (default unix)")
    ap.add_argument("--sim-strict", action="store_true",
                    help="fail jobs containing work the simulator does not execute")
    ap.add_argument("--no-sim-strict", dest="sim_strict", action="store_false",
                    help="count and warn about such work instead (a case whose program must draw, "
                         "e.g. a compositor, checks the warnings; the later option wins)")
    ap.add_argument("program", nargs=argparse.REMAINDER,
                    help="arm64 program and its arguments; @CROSS@ is replaced by --cross-dir")
    a = ap.parse_args()
    family = "v3d" if a.gpu.startswith("v3d") else "msm"
    program = a.program[1:] if a.program[:1] == ["--"] else a.program
    prog = [p.replace("@CROSS@", a.cross_dir) for p in program]
    if not prog:
        ap.error("no program given")
    if bool(a.output) + bool(a.baseline) + bool(a.baseline_output) not in (0, 3):
        ap.error("--output, --baseline and --baseline-output go together")
    if a.expect_exit != "nonzero" and not a.expect_exit.lstrip("-").isdigit():
        ap.error("--expect-exit takes a number or 'nonzero'")
    for kv in a.env:
        if "=" not in kv:
            ap.error(f"--env {kv!r} is not K=V")
    if a.transport != "unix" and a.mode != "shim":
        ap.error("--transport is for --mode shim")
    if a.transport == "tcp-tls" and shutil.which("certtool") is None:
        print("e2e: SKIP: certtool (gnutls-bin) is not installed")
        return 77
    lib = os.path.join(a.cross_dir, "guest/shim",
                       "libferry-shim.so" if a.mode == "shim" else "libferry-fakekernel.so")
    for f in (lib, prog[0]):
        if not os.path.exists(f):
            print(f"e2e: {f} is missing (build the aarch64 cross dir first)")
            return 1

    tmp = tempfile.mkdtemp(prefix="ferry-e2e-")
    prog = [p.replace("@TMP@", tmp) for p in prog]
    sock = os.path.join(tmp, "ferryd.sock")
    env = dict(os.environ)
    # Only Mesa's ICD for this family, so the test is about that driver (lavapipe stays out).
    env["VK_ICD_FILENAMES"] = ICD[family]
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.setdefault("XDG_RUNTIME_DIR", tmp)
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v.replace("@TMP@", tmp)
    qemu = ["qemu-aarch64", "-L", "/", "-E", f"LD_PRELOAD={lib}"]
    ferryd = None
    listener = None
    if a.mode == "shim" and a.transport == "tcp-tls":
        srv, cli, tokens, token = make_tls_creds(tmp)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        port = listener.getsockname()[1]
        qemu += ["-E", f"FERRY_SOCKET=tcp:127.0.0.1:{port}", "-E", f"FERRY_TLS_CREDS={cli}",
                 "-E", f"FERRY_AUTH_TOKEN_FILE={token}"]
        a.ferryd_arg = ["--tls-creds", srv, "--auth-tokens", tokens, "--log-level", "info"] + a.ferryd_arg
    if a.mode == "shim":
        if not listener:
            qemu += ["-E", f"FERRY_SOCKET={sock}"]
        log = open(os.path.join(tmp, "ferryd.log"), "w+")
        fenv = None
        if a.ferryd_fakekernel:
            # The fake kernel is the node; ferryd's simulator options reach it as environment,
            # and ferryd's start-up warning that it serves a real kernel is expected.
            fenv = dict(os.environ, LD_PRELOAD=a.ferryd_fakekernel, FERRY_GPU=a.gpu,
                        FERRY_FAKEKERNEL_FULL_UAPI="1", FERRY_SIM_STRICT="1" if a.sim_strict else "0")
            fenv["ASAN_OPTIONS"] = (fenv.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
            cmd = [a.ferryd, "--socket", sock, "--gpu", "/dev/dri/renderD128"]
            a.expect_ferryd_warn.append("is a real kernel:")
        else:
            cmd = [a.ferryd, "--socket", sock, "--gpu", a.gpu] + (["--sim-strict"] if a.sim_strict else [])
        if listener:
            # Socket activation: the listener at fd 3, LISTEN_PID the pid exec keeps.
            lfd = listener.fileno()
            cmd = ["sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"'] + cmd
            # (pass_fds would close fd 3 after the dup2; Python's own fds are not inherited anyway.)
            ferryd = subprocess.Popen(cmd + a.ferryd_arg, stdout=log, stderr=log, env=fenv, close_fds=False,
                                      preexec_fn=lambda: os.set_inheritable(3, True) if lfd == 3 else os.dup2(lfd, 3))
            listener.close()  # ferryd's now
        else:
            ferryd = subprocess.Popen(cmd + a.ferryd_arg, stdout=log, stderr=log, env=fenv)
        for _ in range(200):
            if os.path.exists(sock) or ferryd.poll() is not None:
                break
            time.sleep(0.02)
        if not os.path.exists(sock):
            if ferryd.poll() is None:
                ferryd.kill()
                ferryd.wait()
            log.seek(0)
            print("e2e: ferryd did not start:\n" + log.read())
            shutil.rmtree(tmp, ignore_errors=True)
            return 1
    else:
        qemu += ["-E", f"FERRY_GPU={a.gpu}"]
        if a.sim_strict:
            qemu += ["-E", "FERRY_SIM_STRICT=1"]

    # @QEMU@: how this case runs an arm64 program with the same library and settings (a program
    # that starts a second process of its own, e.g. vk_share's consumer).
    prog = [x.replace("@QEMU@", shlex.join(qemu)) for x in prog]
    t0 = time.monotonic()
    p = subprocess.Popen(qemu + prog, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        try:
            out, _ = p.communicate(timeout=a.stop_after if a.stop_after else a.timeout)
        except subprocess.TimeoutExpired:
            if not a.stop_after:
                raise
            p.send_signal(signal.SIGTERM)  # a server (weston) runs until told to quit
            out, _ = p.communicate(timeout=a.timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        out, rc = (out or "") + f"\ne2e: timed out after {a.timeout} s", -1
    took = time.monotonic() - t0
    print(out)
    via = a.mode + ("" if a.transport == "unix" else " over " + a.transport)
    print(f"e2e: {os.path.basename(prog[0])} on {a.gpu} via {via}: exit {rc} in {took:.1f} s")

    ok = rc != 0 if a.expect_exit == "nonzero" else rc == int(a.expect_exit)
    if not ok:
        print(f"e2e: exit status {rc}, expected {a.expect_exit}")
    for e in a.expect:
        if e not in out:
            print(f"e2e: output lacks {e!r}")
            ok = False
    for e in a.expect_re:
        if not re.search(e, out, re.MULTILINE):
            print(f"e2e: no line matches {e!r}")
            ok = False
    for e in a.reject_re:
        m = re.search(e, out, re.MULTILINE)
        if m:
            print(f"e2e: the output matches {e!r}: {m.group(0)!r}")
            ok = False
    if a.output and not compare_with_baseline(a, env, tmp):
        ok = False
    if ferryd:
        ferryd.send_signal(signal.SIGTERM)
        try:
            frc = ferryd.wait(timeout=20)
        except subprocess.TimeoutExpired:
            ferryd.kill()
            frc = "hung"
        log.seek(0)
        flog = log.read()
        if frc != 0:
            print(f"e2e: ferryd ended with {frc}:\n{flog}")
            ok = False
        else:
            # A warning is a refused message or a failed job: none is expected unless the case
            # names it (--expect-ferryd-warn, for cases that make the GPU fail on purpose).
            # Work the simulator skipped is warned about too: shown here, and failed (as a job
            # error) only with --sim-strict.
            problems = [l for l in flog.splitlines() if " error:" in l or " warn:" in l]
            skipped = [l for l in problems if "counted as unmodeled-" in l]
            bad = [l for l in problems if l not in skipped and
                   not any(re.search(w, l) for w in a.expect_ferryd_warn)]
            if skipped:
                print("e2e: ferryd counted work the simulator does not execute:\n" + "\n".join(skipped))
            for w in a.expect_ferryd_warn:
                if not any(re.search(w, l) for l in problems):
                    print(f"e2e: ferryd logged no warning matching {w!r}")
                    ok = False
            if bad:
                print("e2e: ferryd logged problems:\n" + "\n".join(bad))
                ok = False
            if a.transport == "tcp-tls":
                # The shim came in over TLS by its certificate; what crossed the wire, per connection.
                if not re.search(r"authenticated \(client certificate\)", flog):
                    print("e2e: ferryd logged no client authenticated by its certificate")
                    ok = False
                wire = [l for l in flog.splitlines() if ": wire: sent " in l]
                if not wire:
                    print("e2e: ferryd logged no wire counts for the tcp connection")
                    ok = False
                for l in wire:
                    print("e2e: ferryd " + l[l.index(": wire:") + 2:])
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
