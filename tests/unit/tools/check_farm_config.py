#!/usr/bin/env python3
"""contrib/haproxy/ferry-farm.cfg against the wire: its tcp-check send/expect lines must be what
`ferry health-check` prints from the real encoder, and HAProxy must accept the file."""
import subprocess
import sys

ferry, cfg = sys.argv[1], sys.argv[2]
want = subprocess.run([ferry, "health-check"], check=True, capture_output=True, text=True,
                      timeout=30).stdout.split("\n")
want = [l.strip() for l in want if l.strip()]
with open(cfg) as f:
    have = [l.strip() for l in f if l.strip().startswith(("tcp-check send-binary", "tcp-check expect binary"))]
ok = True
if have != want:
    print("ferry-farm.cfg's health check is not what `ferry health-check` prints:")
    print("  config:  " + "\n           ".join(have))
    print("  encoder: " + "\n           ".join(want))
    ok = False
for l in want:
    print("ok  " + l)

# HAProxy's own check of the file (Debian's haproxy is in ci/install-deps.sh).
r = subprocess.run(["haproxy", "-c", "-f", cfg], capture_output=True, text=True, timeout=30)
if r.returncode != 0:
    print("haproxy -c rejects ferry-farm.cfg:\n" + r.stdout + r.stderr)
    ok = False
else:
    print("ok  haproxy -c accepts " + cfg)
sys.exit(0 if ok else 1)
