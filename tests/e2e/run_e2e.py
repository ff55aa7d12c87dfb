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
--sim-strict:      work the simulator does not execute fails its job (ferryd --sim-strict, or
                   FERRY_SIM_STRICT=1 for the fake kernel) instead of being counted and warned
                   about, so a case cannot pass on skipped work."""
import argparse
import shlex
import os
import re
import shutil
import signal
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
    if a.mode == "shim":
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
    print(f"e2e: {os.path.basename(prog[0])} on {a.gpu} via {a.mode}: exit {rc} in {took:.1f} s")

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
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
