#!/usr/bin/env python3
"""`ferry doctor` on the fake kernel (libferry-fakekernel.so in LD_PRELOAD, FERRY_GPU picking the
part): every check passes and names the part; a node that is no DRM device fails with status 1.
Usage: check_doctor.py FERRY FAKEKERNEL GPU"""
import os
import subprocess
import sys

ferry, lib, gpu = sys.argv[1:4]
parts = {'a630': 'part: a630', 'a660': 'part: a660', 'v3d-4.2': 'part: V3D 4.2', 'v3d-7.1': 'part: V3D 7.1'}
env = dict(os.environ, LD_PRELOAD=lib, FERRY_GPU=gpu)
env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') + ':verify_asan_link_order=0').lstrip(':')
failed = 0


def check(cond, what, out):
    global failed
    if not cond:
        failed += 1
        print(f'FAIL: {what}\n--- output ---\n{out}', file=sys.stderr)


r = subprocess.run([ferry, 'doctor'], env=env, capture_output=True, text=True, timeout=60)
out = r.stdout + r.stderr
check(r.returncode == 0, f'doctor on {gpu} exits 0 (got {r.returncode})', out)
check('ok    node: /dev/dri/renderD128' in out, 'auto finds the node', out)
check(parts[gpu] in out, f'names the part ({parts[gpu]})', out)
check('signals (poll)' in out and 'FAIL' not in out, 'the fence sync_file signals, nothing fails', out)
check('doctor: every check passed' in out, 'says every check passed', out)

r = subprocess.run([ferry, 'doctor', '--gpu', '/dev/null'], env=env, capture_output=True, text=True, timeout=60)
out = r.stdout + r.stderr
check(r.returncode == 1, f'doctor on /dev/null exits 1 (got {r.returncode})', out)
check('FAIL  driver: none (not a DRM device)' in out, 'says /dev/null is no DRM device', out)
print(f'check_doctor {gpu}: {"ok" if not failed else f"{failed} failed"}')
sys.exit(1 if failed else 0)
