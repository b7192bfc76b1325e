#!/usr/bin/env python3
"""Steady traffic through nginx, and what e2e.sh asks of it afterwards.

    traffic.py run URL LOG [--rate 300] [--clients 4] [--max-seconds 300]
        GETs URL at a steady rate until stopped (or max-seconds), and appends one
        JSON line per quarter second to LOG: {"t": end of the interval (epoch
        seconds), "n": {answer: count}, "max_ms": slowest answer}. An answer is the
        body of a 200 (the upstream's name), else the status code, else "error".
    traffic.py split LOG FROM TO [--expect a=300,b=200] [--tolerance 3] [--allow 503]
        Shares of the answers in [FROM, TO); fails when an answer is neither a
        name in --expect nor --allow, or when a share is off the weights by more
        than the tolerance (percentage points).
    traffic.py share LOG FROM TO NAME [--falling | --rising] [--tolerance 2] [--overall]
        NAME's share second by second; --falling/--rising fail unless it moves one
        way (within the tolerance) and at least three seconds lie more than a
        point away from both its lowest and its highest share. NAME may be several
        names joined by commas (b1,b2,b3): their shares summed. --overall prints
        the share over the whole of [FROM, TO) instead.
    traffic.py first LOG AFTER ANSWER
        Seconds from AFTER to the first interval holding ANSWER.

Standard library only; 127.0.0.1 is all it is meant for.
"""

import argparse
import http.client
import json
import signal
import sys
import threading
import time
import urllib.parse

INTERVAL = 0.25


def run(args):
    url = urllib.parse.urlsplit(args.url)
    lock = threading.Lock()
    counts, slowest = {}, [0.0]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def client(offset):
        connection = None
        period = args.clients / args.rate
        due = time.monotonic() + offset * period / args.clients
        while not stop.is_set():
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            # Behind schedule (a stall): catch up from now instead of bursting.
            due = max(due + period, time.monotonic())
            began = time.monotonic()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
                connection.request("GET", url.path or "/")
                response = connection.getresponse()
                body = response.read().decode(errors="replace").strip()
                answer = body if response.status == 200 else str(response.status)
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                answer = "error"
                if connection is not None:
                    connection.close()
                connection = None
            took = (time.monotonic() - began) * 1000
            with lock:
                counts[answer] = counts.get(answer, 0) + 1
                slowest[0] = max(slowest[0], took)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    for thread in threads:
        thread.start()
    ends = time.time() + args.max_seconds
    with open(args.log, "a", buffering=1) as log:
        while not stop.is_set() and time.time() < ends:
            stop.wait(INTERVAL)
            with lock:
                taken, took = dict(counts), slowest[0]
                counts.clear()
                slowest[0] = 0.0
            log.write(json.dumps({"t": round(time.time(), 3), "n": taken, "max_ms": round(took, 1)}) + "\n")
    stop.set()
    for thread in threads:
        thread.join(timeout=6)


def intervals(log, start, end):
    with open(log) as lines:
        for line in lines:
            entry = json.loads(line)
            if start <= entry["t"] < end:
                yield entry


def totals(log, start, end):
    summed = {}
    for entry in intervals(log, start, end):
        for answer, count in entry["n"].items():
            summed[answer] = summed.get(answer, 0) + count
    return summed


def weights(text):
    return {name: int(weight) for name, weight in (pair.split("=") for pair in text.split(","))} if text else {}


def split(args):
    expect, allowed = weights(args.expect), set(args.allow)
    summed = totals(args.log, args.start, args.end)
    requests = sum(summed.values())
    served = sum(count for answer, count in summed.items() if answer in expect)
    failures = sum(count for answer, count in summed.items() if answer not in expect and answer not in allowed)
    problems = []
    if requests == 0:
        problems.append("no requests")
    for answer, count in sorted(summed.items()):
        if answer not in expect and answer not in allowed:
            problems.append(f"{count} answers {answer!r}")
    shares = []
    nominal = sum(expect.values())
    for name, weight in expect.items():
        share = 100 * summed.get(name, 0) / served if served else 0.0
        wanted = 100 * weight / nominal if nominal else 0.0
        shares.append(f"{name}:{share:.1f}")
        if abs(share - wanted) > args.tolerance:
            problems.append(f"{name} has {share:.1f}% of the traffic, its weight says {wanted:.1f}%")
    print(f"requests={requests} failures={failures} split={'/'.join(shares)}"
          + "".join(f" {answer}={summed.get(answer, 0)}" for answer in sorted(allowed)))
    for problem in problems:
        print("  " + problem, file=sys.stderr)
    return 1 if problems else 0


def share(args):
    names = args.name.split(",")

    def of(summed):
        served = sum(count for answer, count in summed.items() if not answer.isdigit() and answer != "error")
        return 100 * sum(summed.get(name, 0) for name in names) / served if served else None

    if args.overall:
        overall = of(totals(args.log, args.start, args.end))
        print("none" if overall is None else f"{overall:.1f}")
        return 0 if overall is not None else 1
    seconds = []
    second = args.start
    while second < args.end:
        value = of(totals(args.log, second, min(second + 1, args.end)))
        if value is not None:
            seconds.append(value)
        second += 1
    print(" ".join(f"{value:.1f}" for value in seconds))
    if not (args.falling or args.rising) or not seconds:
        return 0 if seconds else 1
    direction = -1 if args.falling else 1
    for before, after in zip(seconds, seconds[1:]):
        if (after - before) * direction < -args.tolerance:
            print(f"  {args.name}'s share went {before:.1f} -> {after:.1f}", file=sys.stderr)
            return 1
    # A second that straddles two ramp steps shows a level in between; either way a
    # ramp of several steps leaves several seconds clearly away from both ends.
    low, high = min(seconds), max(seconds)
    between = [v for v in seconds if low + 1 < v < high - 1]
    if len(between) < 3:
        print(f"  {args.name}'s share moved in fewer than 3 intermediate steps", file=sys.stderr)
        return 1
    return 0


def first(args):
    for entry in intervals(args.log, args.after, float("inf")):
        if entry["n"].get(args.answer):
            print(f"{entry['t'] - args.after:.2f}")
            return 0
    print(f"  no {args.answer!r} after {args.after}", file=sys.stderr)
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("run")
    command.add_argument("url")
    command.add_argument("log")
    command.add_argument("--rate", type=float, default=300)
    command.add_argument("--clients", type=int, default=4)
    command.add_argument("--max-seconds", type=float, default=300)
    command = commands.add_parser("split")
    command.add_argument("log")
    command.add_argument("start", type=float)
    command.add_argument("end", type=float)
    command.add_argument("--expect", default="")
    command.add_argument("--tolerance", type=float, default=3)
    command.add_argument("--allow", action="append", default=[])
    command = commands.add_parser("share")
    command.add_argument("log")
    command.add_argument("start", type=float)
    command.add_argument("end", type=float)
    command.add_argument("name")
    command.add_argument("--falling", action="store_true")
    command.add_argument("--rising", action="store_true")
    command.add_argument("--tolerance", type=float, default=2)
    command.add_argument("--overall", action="store_true")
    command = commands.add_parser("first")
    command.add_argument("log")
    command.add_argument("after", type=float)
    command.add_argument("answer")
    args = parser.parse_args()
    sys.exit({"run": run, "split": split, "share": share, "first": first}[args.command](args) or 0)


if __name__ == "__main__":
    main()
