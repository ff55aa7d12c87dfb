#!/usr/bin/env python3
"""The validator regression corpus (tools/corpus/capture-corpus.sh made it from real Mesa traffic):
every capture is replayed in validated contexts and in passthrough ones on private ferryds, BOs
dumped after every submit. No submit may be refused by validation; every submit must end as in
passthrough (the same fence result, or the same refusal, e.g. of a context lost to an earlier
fault); every BO byte must be what passthrough leaves there.

Excepted, because they differ by design and not by what the GPU was told to write:
- bytes that differ between two passthrough replays (timestamps: the simulated clock is real
  time), masked per aligned 8-byte word;
- V3D: the binner's tile allocation and tile state BOs (qma / qts), which a validated context's
  bin job never touches (it writes host-private shadows, docs/security.md), and the BOs holding
  control lists, whose addresses the replay relocates to where each run's kernel placed the BOs
  (a validated run's shadows take address space, so placements differ)."""
import argparse
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

DUMP = re.compile(r"s(\d+)-c(\d+)-b(\d+)-0x[0-9a-f]+\.bin$")
RESULT = re.compile(r"^submit (\d+): .*?: ((?:fence|refused:) .*)$")
SUMMARY = re.compile(r"^replayed \d+ submits: \d+ ran, \d+ refused, \d+ faulted$", re.MULTILINE)


def replay(ferry, ferryd, cap, policy, dump):
    p = subprocess.run([ferry, "replay", cap, "--policy", policy, "--dump-bo", dump, "--ferryd", ferryd],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    results = [m.group(1) + " " + m.group(2) for m in map(RESULT.match, p.stdout.splitlines()) if m]
    return p.returncode, p.stdout, results


def dumps(d):
    out = {}
    for f in os.listdir(d):
        m = DUMP.match(f)
        if m:
            out[tuple(int(x) for x in m.groups())] = os.path.join(d, f)
    return out


def decode(ferry, cap):
    return subprocess.run([ferry, "decode", cap], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=600).stdout


def v3d_excluded(text):
    """BO ids (ctx-agnostic: a corpus file is one context) of V3D tile memory and control lists."""
    ids = set()
    bos = []
    addrs = []
    for line in text.splitlines():
        m = re.match(r"\s*bcl 0x[0-9a-f]+\.\.0x[0-9a-f]+ rcl .* qma (0x[0-9a-f]+) qms (0x[0-9a-f]+) qts (0x[0-9a-f]+)", line)
        if m:
            if bos:
                ids |= {b for b, lo, size in bos for a in addrs if lo <= a < lo + size}
            bos, addrs = [], [int(m.group(1), 16), int(m.group(3), 16)]
            continue
        m = re.match(r"\s*bo (\d+): (0x[0-9a-f]+) size (0x[0-9a-f]+)", line)
        if m:
            bos.append((int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)))
            continue
        if line.lstrip().startswith(("@buffer", "@format")):  # a walked list or record
            ids |= {int(b) for b in re.findall(r"\bbo(\d+)_0x", line)}
    ids |= {b for b, lo, size in bos for a in addrs if a and lo <= a < lo + size}
    return ids


def noisy_words(a, b):
    """Aligned 8-byte words where two passthrough runs differ."""
    words = set()
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            words.add(i // 8)
    return words


def check(ferry, ferryd, path, tmp):
    name = os.path.basename(path)
    cap = os.path.join(tmp, "cap.ferrycap")
    with lzma.open(path) as src, open(cap, "wb") as dst:
        shutil.copyfileobj(src, dst)
    text = decode(ferry, cap)
    submits = len(re.findall(r"^@\d+ FRAME (?:msm_submit|v3d_submit_\w+) ", text, re.MULTILINE))
    runs = {}
    for run, policy in (("validated", "validated"), ("pass1", "passthrough"), ("pass2", "passthrough")):
        d = os.path.join(tmp, run)
        os.mkdir(d)
        rc, out, results = replay(ferry, ferryd, cap, policy, d)
        if not re.search(rf"^context \d+: {policy} \(--policy\)$", out, re.MULTILINE):
            print(f"{name}: the {policy} replay does not say it ran its context {policy}:\n{out}")
            return False
        # A submit refused for another reason than validation (the context was lost to an
        # earlier fault, as when captured) makes the replay exit 1 but is compared below.
        if rc not in (0, 1) or len(results) != submits or not SUMMARY.search(out) or "ferry replay:" in out:
            print(f"{name}: {policy} replay failed (exit {rc}, {len(results)} of {submits} submits):\n{out}")
            return False
        runs[run] = (dumps(d), results, out)
    ok = True
    # msm: "rejected by validation: ...", V3D: "V3D validation: ..."
    if re.search(r"^submit \d+: .*refused: .*validation", runs["validated"][2], re.MULTILINE):
        print(f"{name}: the validator refused submits:\n{runs['validated'][2]}")
        ok = False
    if runs["validated"][1] != runs["pass1"][1]:
        print(f"{name}: fence results differ:\n  validated:   {runs['validated'][1]}\n  passthrough: {runs['pass1'][1]}")
        ok = False
    excluded = v3d_excluded(text) if "v3d_submit" in text else set()
    v, p1, p2 = runs["validated"][0], runs["pass1"][0], runs["pass2"][0]
    if set(v) != set(p1):
        print(f"{name}: the runs dumped different BOs: {sorted(set(v) ^ set(p1))[:8]}")
        return False
    compared = masked = 0
    for key in sorted(v):
        if key[2] in excluded:
            continue
        with open(v[key], "rb") as f:
            bv = f.read()
        with open(p1[key], "rb") as f:
            b1 = f.read()
        compared += len(bv)
        if bv == b1:
            continue
        with open(p2[key], "rb") as f:
            b2 = f.read()
        noise = noisy_words(b1, b2)
        bad = [i for i in range(max(len(bv), len(b1)))
               if i // 8 not in noise and (i >= len(bv) or i >= len(b1) or bv[i] != b1[i])]
        masked += len(noise) * 8
        if bad:
            i = bad[0]
            print(f"{name}: submit {key[0]} bo {key[2]}: {len(bad)} byte(s) differ from passthrough, first at "
                  f"+0x{i:x}: validated {bv[i:i + 8].hex()} passthrough {b1[i:i + 8].hex()}")
            ok = False
    print(f"{name}: {len(runs['validated'][1])} submits replayed, none refused by validation, {compared} BO bytes compared "
          f"({masked} masked as run-to-run noise), {len(excluded)} V3D list / tile-memory BOs excepted: "
          f"{'ok' if ok else 'FAIL'}")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ferry", required=True)
    ap.add_argument("--ferryd", required=True)
    ap.add_argument("captures", nargs="+", help="*.ferrycap.xz files, or directories holding them")
    a = ap.parse_args()
    paths = []
    for c in a.captures:
        if os.path.isdir(c):
            paths += sorted(os.path.join(c, f) for f in os.listdir(c) if f.endswith(".ferrycap.xz"))
        else:
            paths.append(c)
    if not paths:
        print("no capture to check")
        return 1
    ok = True
    for path in paths:
        tmp = tempfile.mkdtemp(prefix="ferry-corpus-")
        try:
            ok = check(a.ferry, a.ferryd, path, tmp) and ok
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
