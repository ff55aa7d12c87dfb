#!/usr/bin/env python3
"""Checks a `ferry trace` JSON file: it parses, names its rows, and each expected queue has its
submits' events in order (submit <= kernel submit <= retire per seqno, seqnos increasing), a
"run" span per seqno and GPU spans inside it.
usage: check_trace.py FILE QUEUE:COUNT[:held][:nocp] ... [gpu=NAME:COUNT ...]
(:held: a submit of that queue was held; :nocp: the queue's GPU work is on engine rows, as v3d's,
not a per-queue "cp" row; gpu=NAME:COUNT: at least COUNT GPU spans of that engine, e.g. bin.)"""
import json
import sys


def fail(msg):
    print("check_trace: " + msg)
    sys.exit(1)


def main():
    path, specs = sys.argv[1], sys.argv[2:]
    with open(path) as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e.get("ph") == "M" and e["name"] == "thread_name"}
    for e in evs:
        if e.get("ph") in ("i", "X") and (e["pid"], e["tid"]) not in threads:
            fail("event on an unnamed row: %r" % e)
    gpu_specs = [s for s in specs if s.startswith("gpu=")]
    queue_specs = [s for s in specs if not s.startswith("gpu=")]
    for spec in queue_specs:
        parts = spec.split(":")
        queue, count = int(parts[0]), int(parts[1])
        want_held, want_cp = "held" in parts[2:], "nocp" not in parts[2:]
        host = [e for e in evs if e.get("ph") == "i" and e.get("cat") == "host" and e["args"].get("queue") == queue]
        if not host:
            fail("no host events for queue %d" % queue)
        by = {}
        for e in host:
            by.setdefault(e["args"]["seqno"], {}).setdefault(e["name"], []).append(e)
        subs = sorted((e["ts"], e["args"]["seqno"]) for e in host if e["name"] == "submit")
        seqnos = [s for _, s in subs]
        if len(seqnos) != count or seqnos != sorted(seqnos):
            fail("queue %d: submits %r, wanted %d in increasing order" % (queue, seqnos, count))
        runs = {e["args"]["seqno"]: e for e in evs if e.get("ph") == "X" and e["name"].startswith("run ")
                and e["args"].get("queue") == queue}
        cps = {e["args"]["seqno"]: e for e in evs if e.get("ph") == "X" and e["name"].startswith("cp ")
               and e["args"].get("queue") == queue}
        held_seen = False
        for s in seqnos:
            ev = by[s]
            order = ["submit"] + (["held", "released"] if "held" in ev else []) + ["kernel submit", "retire"]
            held_seen |= "held" in ev
            ts = []
            for name in order:
                if name not in ev:
                    fail("queue %d seqno %d: no %r event (has %r)" % (queue, s, name, sorted(ev)))
                ts.append(ev[name][0]["ts"])
            if ts != sorted(ts):
                fail("queue %d seqno %d: %r out of order: %r" % (queue, s, order, ts))
            if ev["retire"][0]["args"].get("status") != 0:
                fail("queue %d seqno %d retired with %r" % (queue, s, ev["retire"][0]["args"]))
            run = runs.get(s)
            if not run or abs(run["ts"] - ev["kernel submit"][0]["ts"]) > 0.002:
                fail("queue %d seqno %d: no run span from its kernel submit (%r)" % (queue, s, run))
            if not want_cp:
                continue
            cp = cps.get(s)
            # The GPU starts after the kernel submit and ends before the host saw it retire.
            if not cp or cp["ts"] + 0.002 < run["ts"] or cp["ts"] + cp["dur"] > run["ts"] + run["dur"] + 0.002:
                fail("queue %d seqno %d: GPU span %r not inside the run %r" % (queue, s, cp, run))
        if want_held and not held_seen:
            fail("queue %d: no held submit" % queue)
        if not any(n.endswith(" queue %d" % queue) for n in threads.values()):
            fail("queue %d: its row is not named" % queue)
    for spec in gpu_specs:
        name, count = spec[4:].split(":")
        spans = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "gpu" and e["name"].startswith(name + " ")]
        if len(spans) < int(count):
            fail("%d %s spans, wanted %s" % (len(spans), name, count))
    print("check_trace: ok (%d events)" % len(evs))


main()
