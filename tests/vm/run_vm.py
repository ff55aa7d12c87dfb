#!/usr/bin/env python3
"""Boots Debian's 6.1 amd64 kernel under TCG in an unmodified QEMU 7.2 whose virtio-gpu renderer is
ferry's libvirglrenderer.so.1, runs static guest programs from an initramfs this script builds,
and passes iff every program printed its PASS marker on the serial console.

The kernel package is fetched once with `apt-get download` and cached (vmlinuz and the modules
virtio-gpu needs) under --cache. The script starts its own Xvfb (QEMU 7.2's GL device needs a GL
display) and stops it and QEMU on every path, also when meson's timeout sends SIGTERM.

  run_vm.py --build BUILD_DIR [--case NAME=COMMAND ...] [--timeout S] [--gpu a630]
Each --case runs in the guest as `sh -c COMMAND` with /bin/ferry (tools/ferry-static) on PATH;
it passes iff it exits 0 within --case-timeout seconds."""
import argparse
import gzip
import os
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

# Per guest architecture: the kernel flavour, the package architecture, QEMU and its machine.
ARCHES = {
    "x86_64": {"flavour": "amd64", "deb_arch": "amd64", "qemu": "qemu-system-x86_64",
               "machine": ["-machine", "q35"], "console": "ttyS0"},
    "arm64": {"flavour": "arm64", "deb_arch": "arm64", "qemu": "qemu-system-aarch64",
              "machine": ["-machine", "virt", "-cpu", "cortex-a72"], "console": "ttyAMA0"},
}
MARK = "FERRY-VM:"
# What the guest needs loaded for a render node; depmod adds what these depend on.
ROOT_MODULES = ["virtio_pci", "virtio-gpu"]


class Failure(Exception):
    pass


def log(msg):
    print(f"vm: {msg}", flush=True)


def newest_kernel_package(flavour):
    """The newest linux-image-6.1.0-NN-FLAVOUR apt knows of (None when apt knows none)."""
    p = subprocess.run(["apt-cache", "search", "--names-only", rf"^linux-image-6\.1\.0-[0-9]+-{flavour}$"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=120)
    best = None
    kver_re = re.compile(rf"^linux-image-(6\.1\.0-(\d+)-{flavour})$")
    for line in p.stdout.splitlines():
        m = kver_re.match(line.split(" ", 1)[0])
        if m and (best is None or int(m.group(2)) > best[1]):
            best = (m.group(1), int(m.group(2)))
    return best[0] if best else None


def cached_kernels(cache, flavour):
    found = []
    for d in os.listdir(cache):
        m = re.match(rf"^6\.1\.0-(\d+)-{flavour}$", d)
        if m and os.path.exists(os.path.join(cache, d, "modules.order")):
            found.append((int(m.group(1)), d))
    return [d for _, d in sorted(found, reverse=True)]


def module_closure(tree, kver):
    """Module files (relative to lib/modules/KVER) in load order: dependencies first."""
    deps = {}
    with open(os.path.join(tree, "lib/modules", kver, "modules.dep")) as f:
        for line in f:
            mod, _, rest = line.partition(":")
            deps[mod] = rest.split()
    by_name = {os.path.basename(m)[:-3]: m for m in deps}
    order = []

    def visit(mod):
        if mod in order:
            return
        # modules.dep lists the whole closure; the ones nothing else here needs come last.
        for d in reversed(deps[mod]):
            visit(d)
        order.append(mod)

    for name in ROOT_MODULES:
        if name not in by_name:
            raise Failure(f"module {name} is not in the kernel package")
        visit(by_name[name])
    return order


def apt_download(pkg, work):
    """The .deb of pkg (NAME or NAME:ARCH) downloaded into work."""
    p = subprocess.run(["apt-get", "download", "-q", pkg], cwd=work, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    debs = [f for f in os.listdir(work) if f.endswith(".deb")]
    if p.returncode != 0 or not debs:
        raise Failure(f"apt-get download {pkg} failed:\n{p.stdout}")
    return os.path.join(work, debs[0])


def fetch_busybox(cache, arch):
    """A static busybox for the guest: the host's for x86-64, busybox-static:arm64's for arm64."""
    if arch == "x86_64":
        return "/bin/busybox"
    path = os.path.join(cache, f"busybox-{arch}")
    if not os.path.exists(path):
        work = tempfile.mkdtemp(prefix="busybox-", dir=cache)
        try:
            deb = apt_download(f"busybox-static:{ARCHES[arch]['deb_arch']}", work)
            subprocess.run(["dpkg-deb", "-x", deb, os.path.join(work, "tree")], check=True, timeout=600)
            shutil.copy(os.path.join(work, "tree", "bin", "busybox"), path + ".tmp")
            os.rename(path + ".tmp", path)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return path


def fetch_kernel(cache, arch="x86_64"):
    """Returns the cached kernel directory (vmlinuz, modules/, modules.order), downloading the
    newest 6.1 package when apt knows a newer one than the cache holds (or the cache is empty)."""
    os.makedirs(cache, exist_ok=True)
    flavour = ARCHES[arch]["flavour"]
    have = cached_kernels(cache, flavour)
    try:
        want = newest_kernel_package(flavour)
    except (OSError, subprocess.TimeoutExpired):
        want = None
    if want is None and have:
        return os.path.join(cache, have[0])
    if want is None:
        raise Failure(f"apt knows no linux-image-6.1.0-NN-{flavour} package (apt-get update?) and none is cached")
    if want in have:
        return os.path.join(cache, want)
    try:
        return download_kernel(cache, arch, want)
    except (Failure, OSError, subprocess.SubprocessError) as e:
        if not have:
            raise
        # apt's lists name a newer kernel than the mirror (or the network) gives: an older one
        # boots the tests as well.
        why = (str(e).strip().splitlines() or ["?"])[-1]
        log(f"cannot fetch {want} ({why}); using the cached {have[0]}")
        return os.path.join(cache, have[0])


def download_kernel(cache, arch, want):
    pkg = f"linux-image-{want}:{ARCHES[arch]['deb_arch']}"
    log(f"fetching {pkg} (cached under {cache})")
    work = tempfile.mkdtemp(prefix="kernel-", dir=cache)
    try:
        deb = apt_download(pkg, work)
        tree = os.path.join(work, "tree")
        subprocess.run(["dpkg-deb", "-x", deb, tree], check=True, timeout=600)
        # The package ships no modules.dep.
        subprocess.run(["depmod", "-b", tree, want], check=True, timeout=600)
        order = module_closure(tree, want)
        out = os.path.join(work, want)
        os.makedirs(os.path.join(out, "modules"))
        shutil.copy(os.path.join(tree, "boot", f"vmlinuz-{want}"), os.path.join(out, "vmlinuz"))
        for m in order:
            shutil.copy(os.path.join(tree, "lib/modules", want, m), os.path.join(out, "modules"))
        with open(os.path.join(out, "modules.order"), "w") as f:
            f.write("".join(os.path.basename(m) + "\n" for m in order))
        os.rename(out, os.path.join(cache, want))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return os.path.join(cache, want)


ARM64_LIBDIRS = ["/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]
# Loaded by name (dlopen), not NEEDED by anything: the loader and the drivers its ICDs name.
ARM64_VULKAN = ["libvulkan.so.1", "libvulkan_freedreno.so", "libvulkan_broadcom.so"]
ARM64_ICDS = ["freedreno_icd.aarch64.json", "broadcom_icd.aarch64.json"]


def needed(path):
    p = subprocess.run(["aarch64-linux-gnu-readelf", "-d", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, timeout=60)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", p.stdout)


def arm64_closure(names):
    """(guest path, host path) of names and every library they need, from the host's arm64
    multiarch directories (Debian's arm64 packages, which the e2e suite installs)."""
    out, seen, todo = [], set(), list(names)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        src = next((os.path.join(d, n) for d in ARM64_LIBDIRS if os.path.exists(os.path.join(d, n))), None)
        if src is None:
            raise Failure(f"arm64 library {n} is not installed (ci/install-deps.sh --e2e)")
        out.append((f"usr/lib/aarch64-linux-gnu/{n}", os.path.realpath(src)))
        todo += needed(src)
    return out


def arm64_vulkan_files(programs=()):
    """The Vulkan stack, and the libraries the given arm64 programs (the shim, a test) need."""
    extra = [n for p in programs for n in needed(p)]
    files = arm64_closure(ARM64_VULKAN + ["ld-linux-aarch64.so.1"] + extra)
    files.append(("lib/ld-linux-aarch64.so.1", os.path.realpath("/lib/ld-linux-aarch64.so.1")))
    files += [(f"usr/share/vulkan/icd.d/{j}", f"/usr/share/vulkan/icd.d/{j}") for j in ARM64_ICDS]
    return files


class Cpio:
    """A newc archive (what the kernel unpacks as an initramfs), written in memory."""

    def __init__(self):
        self.data = bytearray()
        self.ino = 1

    def _entry(self, name, mode, body=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(body), 0, 0, rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        self.data += b"070701" + b"".join(b"%08x" % v for v in fields) + name_b
        self.data += b"\0" * (-len(self.data) % 4)
        self.data += body
        self.data += b"\0" * (-len(self.data) % 4)

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, body, mode=0o755):
        self._entry(name, stat.S_IFREG | mode, body)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def finish(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.data)


def init_script(modules, cases, case_timeout, env=()):
    """The guest's /init: load the modules, run each case, print markers, power off."""
    lines = [
        "#!/bin/busybox sh",
        "/bin/busybox --install -s /bin",
        "export PATH=/bin",
    ] + [f"export {k}='{v}'" for k, v in env] + [
        "mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev",
        "mount -t tmpfs tmp /tmp; mount -t debugfs debugfs /sys/kernel/debug",
        f'echo "{MARK} init at $(cut -d" " -f1 /proc/uptime) s"',
    ]
    for m in modules:
        lines.append(f'insmod /modules/{m} || echo "{MARK} FAIL insmod {m}"')
    lines += [
        "i=0; while [ ! -e /dev/dri/renderD128 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done",
        f'[ -e /dev/dri/renderD128 ] || echo "{MARK} FAIL no /dev/dri/renderD128"',
        "cat /sys/kernel/debug/dri/0/virtio-gpu-features 2>/dev/null",
        f'echo "{MARK} modules loaded at $(cut -d" " -f1 /proc/uptime) s"',
    ]
    for name, cmd in cases:
        q = cmd.replace("'", "'\\''")
        lines += [
            f'echo "{MARK} RUN {name}"',
            f"timeout -s KILL {case_timeout} sh -c '{q}'; rc=$?",
            f'if [ $rc -eq 0 ]; then echo "{MARK} PASS {name}"; '
            f'else echo "{MARK} FAIL {name} (exit $rc)"; fi',
            f'echo "{MARK} done {name} at $(cut -d" " -f1 /proc/uptime) s"',
        ]
    lines += [f'echo "{MARK} END"', "poweroff -f", ""]
    return "\n".join(lines).encode()


def build_initramfs(path, kernel_dir, ferry_static, cases, case_timeout, bins=(), busybox="/bin/busybox",
                    files=(), env=()):
    with open(os.path.join(kernel_dir, "modules.order")) as f:
        modules = f.read().split()
    c = Cpio()
    for d in ["bin", "dev", "proc", "sys", "tmp", "modules"]:
        c.dir(d)
    # The kernel opens /dev/console for init before anything could mount devtmpfs.
    c.chardev("dev/console", 5, 1)
    with open(busybox, "rb") as f:
        c.file("bin/busybox", f.read())
    c.symlink("bin/sh", "busybox")
    if ferry_static:
        with open(ferry_static, "rb") as f:
            c.file("bin/ferry", f.read())
    for name, src in bins:
        with open(src, "rb") as f:
            c.file(f"bin/{name}", f.read())
    made = set()
    for dest, src in files:
        parts = dest.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d not in made and d not in ("bin", "dev", "proc", "sys", "tmp", "modules"):
                c.dir(d)
                made.add(d)
        with open(src, "rb") as f:
            c.file(dest, f.read(), 0o755)
    for m in modules:
        with open(os.path.join(kernel_dir, "modules", m), "rb") as f:
            c.file(f"modules/{m}", f.read(), 0o644)
    c.file("init", init_script(modules, cases, case_timeout, env))
    with open(path, "wb") as f:
        f.write(gzip.compress(c.finish(), compresslevel=1))


def start_xvfb(tmp):
    """Xvfb on a display it picks itself (-displayfd): returns (process, ':N')."""
    r, w = os.pipe()
    xlog = open(os.path.join(tmp, "xvfb.log"), "w")
    p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24",
                          "+extension", "GLX", "-nolisten", "tcp"],
                         pass_fds=(w,), stdout=xlog, stderr=xlog, start_new_session=True)
    os.close(w)
    got = b""
    deadline = time.monotonic() + 30
    try:
        while not got.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                raise Failure("Xvfb did not report a display within 30 s")
            chunk = os.read(r, 16)
            if not chunk:
                raise Failure("Xvfb exited before reporting a display: " +
                              open(os.path.join(tmp, "xvfb.log")).read()[-2000:])
            got += chunk
    finally:
        os.close(r)
    return p, ":" + got.decode().strip()


def stop(p, name):
    """Stops a process group started here: SIGTERM, then SIGKILL after 5 s."""
    if p is None or p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        log(f"{name} ignored SIGTERM; killing it")
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
    except ProcessLookupError:
        p.wait(timeout=10)


def run_qemu(a, tmp, kernel_dir, initrd, display, cases):
    """Runs the VM to its END marker (or the timeout); returns (serial lines, boot timings)."""
    env = dict(os.environ)
    glue = os.path.join(a.build, "vmm-glue")
    env.update({
        "DISPLAY": display,
        "LD_LIBRARY_PATH": glue + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else ""),
        "FERRY_VG_GPU": a.gpu,
        "FERRY_VG_LOG_LEVEL": str(a.log_level),
        "FERRY_VG_SIM_STRICT": "1",
        # ferry demo's GPU-fault step runs in a passthrough context.
        "FERRY_VG_ALLOW_PASSTHROUGH": "1",
        # No D-Bus session: GTK would try to autolaunch one.
        "DBUS_SESSION_BUS_ADDRESS": "disabled:",
        "NO_AT_BRIDGE": "1",
        "GDK_BACKEND": "x11",
    })
    arch = ARCHES[a.arch]
    cmd = [a.qemu or arch["qemu"]] + arch["machine"] + ["-accel", "tcg", "-m", "1G", "-smp", "1",
           "-nodefaults", "-no-user-config", "-device", "virtio-gpu-gl-pci",
           "-display", a.display + ",gl=on", "-serial", "stdio", "-monitor", "none",
           "-kernel", os.path.join(kernel_dir, "vmlinuz"), "-initrd", initrd,
           "-append", f"console={arch['console']} panic=-1 quiet", "-no-reboot"] + a.qemu_arg
    if a.shared_ram:
        # Guest RAM as a shared memfd: the glue can then map a submit ring's scattered pages side
        # by side (docs/vm.md "Submit rings"); with private RAM only rings in one run of pages.
        cmd += ["-object", "memory-backend-memfd,id=ram,size=1G,share=on", "-machine", "memory-backend=ram"]
    qlog_path = os.path.join(tmp, "qemu-stderr.log")
    qlog = open(qlog_path, "w")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=qlog, start_new_session=True)
    lines = []
    times = {}
    buf = b""
    deadline = t0 + a.timeout
    try:
        ended = False
        while not ended:
            left = deadline - time.monotonic()
            if left <= 0:
                lines.append(f"{MARK} FAIL timeout after {a.timeout} s")
                break
            if not select.select([p.stdout], [], [], min(left, 1.0))[0]:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode(errors="replace").rstrip("\r")
                lines.append(line)
                print(f"guest| {line}", flush=True)
                if line.startswith(MARK):
                    rest = line[len(MARK):].strip()
                    times.setdefault(rest.split(" at ")[0], time.monotonic() - t0)
                    if rest == "END":
                        ended = True
        if ended:
            try:
                rc = p.wait(timeout=30)  # poweroff -f
                if rc != 0:  # e.g. an abort in QEMU's display code on the way out
                    lines.append(f"{MARK} FAIL QEMU exited with status {rc} after the guest powered off")
            except subprocess.TimeoutExpired:
                lines.append(f"{MARK} FAIL QEMU did not exit after the guest powered off")
        else:
            try:  # the serial console closed: QEMU is on its way out
                rc = p.wait(timeout=5)
                lines.append(f"{MARK} FAIL QEMU exited with status {rc} before the guest's END")
            except subprocess.TimeoutExpired:
                pass
        times["exit"] = time.monotonic() - t0
    finally:
        stop(p, "QEMU")
        qlog.close()
    if buf:
        lines.append(buf.decode(errors="replace"))
    return lines, times, qlog_path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="the meson build directory")
    ap.add_argument("--cache", help="kernel cache (default BUILD/tests/vm/cache)")
    ap.add_argument("--case", action="append", default=[], metavar="NAME=COMMAND")
    ap.add_argument("--case-timeout", type=int, default=120)
    ap.add_argument("--bin", action="append", default=[], metavar="NAME=PATH",
                    help="one more static program for the guest's /bin")
    ap.add_argument("--timeout", type=int, default=300, help="seconds for the whole VM run")
    ap.add_argument("--gpu", default="a630", help="FERRY_VG_GPU")
    ap.add_argument("--log-level", type=int, default=1, help="FERRY_VG_LOG_LEVEL")
    ap.add_argument("--display", default="gtk", choices=["gtk", "sdl"])
    ap.add_argument("--qemu", help="the QEMU program (default: the arch's qemu-system-*)")
    ap.add_argument("--arch", default="x86_64", choices=sorted(ARCHES))
    ap.add_argument("--file", action="append", default=[], metavar="DEST=PATH",
                    help="one more file for the guest (DEST relative to /, e.g. lib/libferry-shim.so)")
    ap.add_argument("--arm64-vulkan", action="store_true",
                    help="Debian's arm64 Vulkan loader, Turnip and v3dv with their libraries (arm64 guest)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="exported in the guest before the cases run")
    ap.add_argument("--qemu-arg", action="append", default=[], help="one more QEMU argument (e.g. -trace)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--expect-clean", action="store_true",
                    help="fail unless the host holds no client, context or BO once every guest process is gone")
    ap.add_argument("--shared-ram", action="store_true",
                    help="guest RAM from a shared memfd (memory-backend-memfd share=on)")
    ap.add_argument("--expect-ring", type=int, metavar="N",
                    help="fail unless some submit ring carried at least N records with doorbells at most a "
                         "quarter of them and no ring was refused; 0: fail if any ring was made")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    cache = a.cache or os.path.join(a.build, "tests", "vm", "cache")
    cases = []
    for c in a.case or ["demo=ferry demo --server virtio:"]:
        name, sep, cmd = c.partition("=")
        if not sep or not re.match(r"^[A-Za-z0-9_.-]+$", name):
            ap.error(f"--case {c!r}: want NAME=COMMAND")
        cases.append((name, cmd))

    # meson's timeout sends SIGTERM: leave through the finally blocks below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(f"vm: terminated"))
    qemu = a.qemu or ARCHES[a.arch]["qemu"]
    for tool in (qemu, "Xvfb", "/bin/busybox", "apt-get", "dpkg-deb", "depmod"):
        if not shutil.which(tool):
            print(f"vm: {tool} is missing (ci/install-deps.sh --vm installs what this test needs)")
            return 1
    # The static ferry CLI is an x86-64 program: arm64 guests run what --file gives them.
    ferry_static = os.path.join(a.build, "tools", "ferry-static") if a.arch == "x86_64" else None
    glue = os.path.join(a.build, "vmm-glue", "libvirglrenderer.so.1")
    for f in [x for x in (ferry_static, glue) if x]:
        if not os.path.exists(f):
            print(f"vm: {f} is not built")
            return 1

    tmp = tempfile.mkdtemp(prefix="ferry-vm-")
    xvfb = None
    ok = False
    try:
        t = time.monotonic()
        kernel_dir = fetch_kernel(cache, a.arch)
        initrd = os.path.join(tmp, "initrd.cpio.gz")
        bins = [tuple(b.split("=", 1)) for b in a.bin]
        files = [tuple(f.split("=", 1)) for f in a.file]
        if a.arm64_vulkan:
            files += arm64_vulkan_files([src for _, src in files])
        env = [tuple(e.split("=", 1)) for e in a.env]
        build_initramfs(initrd, kernel_dir, ferry_static, cases, a.case_timeout, bins,
                        fetch_busybox(cache, a.arch), files, env)
        log(f"kernel {os.path.basename(kernel_dir)}, initramfs {os.path.getsize(initrd) // 1024} KiB "
            f"({time.monotonic() - t:.1f} s)")
        xvfb, display = start_xvfb(tmp)
        log(f"Xvfb on {display}; booting (timeout {a.timeout} s)")
        lines, times, qlog_path = run_qemu(a, tmp, kernel_dir, initrd, display, cases)
        marks = [ln[len(MARK):].strip() for ln in lines if ln.startswith(MARK)]
        fails = [m for m in marks if m.startswith("FAIL")]
        passed = [n for n, _ in cases if f"PASS {n}" in marks]
        ok = not fails and len(passed) == len(cases) and "END" in marks
        with open(qlog_path, errors="replace") as f:
            qerr = f.read()
        # Every guest process has gone (some killed mid-submit): the library's last word on a
        # vanished context (FERRY_VG_LOG_LEVEL >= 2) must say the host holds nothing of theirs.
        if a.expect_clean:
            gone = re.findall(r"gone: the host holds (\d+) clients, (\d+) contexts, (\d+) BOs \((\d+) bytes\)", qerr)
            if not gone:
                log("FAIL clean: the library logged no vanished context (is --log-level >= 2?)")
                ok = False
            elif any(int(v) for v in gone[-1]):
                log(f"FAIL clean: after the last guest process the host still holds {gone[-1]}")
                ok = False
            else:
                log(f"PASS clean: {len(gone)} contexts gone, the host holds 0 clients, 0 contexts, 0 BOs")
        # Submit rings (FERRY_VG_LOG_LEVEL >= 2): the glue logs each ring's end with its counts.
        if a.expect_ring is not None:
            rings = [tuple(int(v) for v in m) for m in
                     re.findall(r"submit ring of ferry context \d+ closed \((\d+) records taken, (\d+) doorbells", qerr)]
            refused = re.findall(r"no submit ring for ferry context \d+: (.*)", qerr)
            records = sum(r for r, _ in rings)
            bells = sum(b for _, b in rings)
            if a.expect_ring == 0:
                # The hostile case's raw clients make rings of their own; libferry's carry records.
                used = [r for r in rings if r[0] > 0]
                if used:
                    log(f"FAIL ring: {len(used)} submit rings carried records, none expected")
                    ok = False
                else:
                    log(f"PASS ring: no submit ring carried records ({len(rings)} hostile ones made)")
            elif refused:
                log(f"FAIL ring: a submit ring was refused: {refused[0]}")
                ok = False
            elif not rings or max(r for r, _ in rings) < a.expect_ring or bells * 4 > records:
                log(f"FAIL ring: rings (records, doorbells) {rings}: want one with >= {a.expect_ring} records "
                    f"and doorbells <= a quarter of the records")
                ok = False
            else:
                log(f"PASS ring: {len(rings)} submit rings carried {records} records with {bells} doorbells")
        if not ok:
            print("vm: QEMU's stderr (last 6000 bytes):\n" + qerr[-6000:])
        timing = ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
        log(f"wall clock from QEMU's start: {timing}")
        for n, _ in cases:
            log(f"{'PASS' if f'PASS {n}' in marks else 'FAIL'} {n}")
        for m in fails:
            log(m)
    except Failure as e:
        print(f"vm: {e}")
    finally:
        stop(xvfb, "Xvfb")
        if a.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
