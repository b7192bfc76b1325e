"""CPU time by thread kind, from /proc: a JVM's threads grouped (request threads, the
committer, JIT compilers, GC, other) and a PostgreSQL postmaster with every descendant.

  python3 bench/cpu_split.py snapshot JVM_PID POSTMASTER_PID > before.json
  python3 bench/cpu_split.py per-write before.json after.json WRITES

prints milliseconds of CPU per write (or heartbeat: any operation) for each group. Linux's USER_HZ is 100.
"""
import collections
import json
import os
import sys


def kind(comm):
    if comm.startswith("http-nio"):
        return "request"
    if comm.startswith("ballast-commit"):
        return "committer"
    if comm.startswith(("C1 Compiler", "C2 Compiler")):
        return "jit"
    if "GC" in comm or comm.startswith("G1"):
        return "gc"
    return "jvm-other"


def snapshot(jvm, postmaster):
    ticks = collections.Counter()
    for task in os.listdir(f"/proc/{jvm}/task"):
        try:
            stat = open(f"/proc/{jvm}/task/{task}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[kind(stat[stat.index("(") + 1:stat.rindex(")")])] += int(fields[11]) + int(fields[12])
    children, own = collections.defaultdict(list), {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        children[int(fields[1])].append(int(pid))
        own[int(pid)] = sum(int(f) for f in fields[11:15])
    queue, seen = [postmaster], set()
    while queue:
        pid = queue.pop()
        if pid in seen or pid not in own:
            continue
        seen.add(pid)
        ticks["postgres"] += own[pid]
        queue += children[pid]
    return ticks


if __name__ == "__main__":
    if sys.argv[1] == "snapshot":
        print(json.dumps(snapshot(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        before, after = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
        writes = int(sys.argv[4])
        split = {k: (after.get(k, 0) - before.get(k, 0)) * 10.0 / writes for k in after}
        print(f"total={sum(split.values()):.3f}", " ".join(f"{k}={v:.3f}" for k, v in sorted(split.items())),
              "(ms CPU per operation)")
