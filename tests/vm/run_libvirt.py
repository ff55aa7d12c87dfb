#!/usr/bin/env python3
"""The libvirt test: vmm-glue/libvirt-domain.xml, filled in, defined and started by a libvirtd this
script starts itself (with virtlogd first), runs the VM suite's guest programs from run_vm.py's
initramfs; then `virsh destroy` and `virsh undefine` must leave no QEMU behind, and the daemons are
stopped. Only the serial device differs from the example: a file, so the test reads the guest.

  run_libvirt.py --build BUILD_DIR [--case NAME=COMMAND ...] [--timeout S]"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_vm  # noqa: E402

URI = "qemu:///system"
NAME = "ferry-vm-test"


def log(msg):
    print(f"libvirt: {msg}", flush=True)


def sh(cmd, timeout=60, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise run_vm.Failure(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}")
    return p


def qemu_pids():
    p = subprocess.run(["pgrep", "-f", f"guest={NAME}"], stdout=subprocess.PIPE, text=True)
    return [int(x) for x in p.stdout.split()]


def start_daemons(tmp):
    """virtlogd, then libvirtd, as daemons with their default system paths (the test must run as
    root, as CI does); what they were started as is stopped at the end."""
    procs = []
    # Not the test runner's library path (meson's points at the build's vmm-glue/): libvirtd's
    # capability probes of QEMU must see the system's libraries; the domain says what it wants.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    for prog in ("virtlogd", "libvirtd"):
        out = open(os.path.join(tmp, f"{prog}.log"), "w")
        p = subprocess.Popen([prog], stdout=out, stderr=out, env=env, start_new_session=True)
        procs.append((prog, p))
        deadline = time.monotonic() + 30
        sock = "/run/libvirt/virtlogd-sock" if prog == "virtlogd" else "/run/libvirt/libvirt-sock"
        while not os.path.exists(sock):
            if p.poll() is not None or time.monotonic() > deadline:
                raise run_vm.Failure(f"{prog} did not come up: " + open(out.name).read()[-2000:])
            time.sleep(0.1)
    return procs


def domain_xml(template, kernel, initrd, glue_dir, display, serial_log, gpu):
    x = open(template).read()
    for k, v in {"@KERNEL@": kernel, "@INITRD@": initrd, "@FERRY_VG_DIR@": glue_dir, "@DISPLAY@": display}.items():
        x = x.replace(k, v)
    x = x.replace("<name>ferry-guest</name>", f"<name>{NAME}</name>")
    x = x.replace("<qemu:env name='FERRY_VG_GPU' value='a630'/>",
                  f"<qemu:env name='FERRY_VG_GPU' value='{gpu}'/>\n"
                  "    <qemu:env name='FERRY_VG_ALLOW_PASSTHROUGH' value='1'/>\n"
                  "    <qemu:env name='FERRY_VG_LOG_LEVEL' value='2'/>")
    # The serial console into a file the test reads; the example's pty console goes with it.
    x = re.sub(r"<serial type='pty'>.*?</serial>\s*<console type='pty'>.*?</console>",
               f"<serial type='file'><source path='{serial_log}'/><target port='0'/></serial>", x, flags=re.S)
    if "@" in x:
        raise run_vm.Failure("the example domain has placeholders this test does not fill")
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--cache", help="kernel cache (default BUILD/tests/vm/cache)")
    ap.add_argument("--case", action="append", default=[], metavar="NAME=COMMAND")
    ap.add_argument("--bin", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--gpu", default="a630")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cache = a.cache or os.path.join(build, "tests", "vm", "cache")
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cases = [tuple(c.split("=", 1)) for c in (a.case or ["demo=ferry demo --server virtio:"])]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("libvirt: terminated"))
    for tool in ("virsh", "libvirtd", "virtlogd", "Xvfb", "qemu-system-x86_64"):
        if not shutil.which(tool):
            print(f"libvirt: {tool} is missing (ci/install-deps.sh --vm installs what this test needs)")
            return 1
    if os.geteuid() != 0:
        print("libvirt: the test starts the system libvirtd and needs root")
        return 1
    # QEMU runs as libvirt's qemu user, which Debian's libvirt-daemon-system would create.
    if subprocess.run(["id", "libvirt-qemu"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        sh(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "libvirt-qemu"])
    tmp = tempfile.mkdtemp(prefix="ferry-libvirt-")
    os.chmod(tmp, 0o755)
    daemons, xvfb, ok = [], None, False
    try:
        kernel_dir = run_vm.fetch_kernel(cache)
        kernel = os.path.join(tmp, "vmlinuz")
        shutil.copy(os.path.join(kernel_dir, "vmlinuz"), kernel)
        initrd = os.path.join(tmp, "initrd.cpio.gz")
        bins = [tuple(b.split("=", 1)) for b in a.bin]
        run_vm.build_initramfs(initrd, kernel_dir, os.path.join(build, "tools", "ferry-static"), cases, 120, bins)
        # What the qemu user must reach: the glue's directory and the files above.
        glue_dir = os.path.join(build, "vmm-glue")
        for p in (kernel, initrd):
            os.chmod(p, 0o644)
        serial = os.path.join(tmp, "serial.log")
        xvfb, display = run_vm.start_xvfb(tmp)
        daemons = start_daemons(tmp)
        xml = os.path.join(tmp, "domain.xml")
        with open(xml, "w") as f:
            f.write(domain_xml(os.path.join(src, "vmm-glue", "libvirt-domain.xml"), kernel, initrd, glue_dir,
                               display, serial, a.gpu))
        # libvirtd probes every QEMU it finds on its first use (tens of seconds under load).
        t0 = time.monotonic()
        sh(["virsh", "-c", URI, "capabilities"], timeout=300)
        log(f"libvirtd ready ({time.monotonic() - t0:.1f} s: it probed the installed QEMUs)")
        sh(["virsh", "-c", URI, "define", xml], timeout=120)
        t0 = time.monotonic()
        sh(["virsh", "-c", URI, "start", NAME], timeout=180)
        log(f"domain started ({time.monotonic() - t0:.1f} s)")
        marks, deadline, text = [], t0 + a.timeout, ""
        while time.monotonic() < deadline and "END" not in marks:
            time.sleep(0.5)
            text = open(serial, errors="replace").read() if os.path.exists(serial) else ""
            marks = [ln.split(run_vm.MARK, 1)[1].strip() for ln in text.splitlines() if run_vm.MARK in ln]
        for ln in text.splitlines():
            print(f"guest| {ln}", flush=True)
        log(f"guest done after {time.monotonic() - t0:.1f} s" if "END" in marks else "guest timed out")
        passed = [n for n, _ in cases if f"PASS {n}" in marks]
        ok = "END" in marks and len(passed) == len(cases) and not any(m.startswith("FAIL") for m in marks)
        for n, _ in cases:
            log(f"{'PASS' if n in passed else 'FAIL'} {n}")
    except (run_vm.Failure, subprocess.TimeoutExpired) as e:
        print(f"libvirt: {e}")
        ok = False
    finally:
        for cmd in (["destroy", NAME], ["undefine", NAME]):
            if daemons:
                subprocess.run(["virsh", "-c", URI] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=60)
        # Nothing of the domain may outlive destroy/undefine.
        deadline = time.monotonic() + 10
        while qemu_pids() and time.monotonic() < deadline:
            time.sleep(0.2)
        left = qemu_pids()
        if left:
            log(f"FAIL QEMU processes left after destroy/undefine: {left}")
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            ok = False
        else:
            log("PASS no QEMU left after destroy/undefine")
        qlog = f"/var/log/libvirt/qemu/{NAME}.log"
        if not ok and os.path.exists(qlog):
            print("libvirt: QEMU's log (last 4000 bytes):\n" + open(qlog, errors="replace").read()[-4000:])
        for prog, p in reversed(daemons):
            run_vm.stop(p, prog)
        if daemons and subprocess.run(["pgrep", "-x", "libvirtd|virtlogd"], stdout=subprocess.DEVNULL).returncode == 0:
            log("FAIL libvirtd or virtlogd still runs after the test stopped them")
            ok = False
        run_vm.stop(xvfb, "Xvfb")
        shutil.rmtree(tmp, ignore_errors=True)
    log("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
