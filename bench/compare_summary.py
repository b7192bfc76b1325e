"""Summary table of bench/compare.sh: reads its RESULT lines, prints each figure per
registry (mean of the rounds, then each round) and the ratio Ballast / peer."""
import sys
from collections import OrderedDict

groups = OrderedDict()
for line in open(sys.argv[1]):
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    size = fields.get("instances") or fields.get("watchers") or fields.get("clients") or ""
    groups.setdefault((fields["figure"], size), OrderedDict()).setdefault(fields["target"], []).append(fields)

COLUMNS = {
    "registrations": [("rate", "writes/s", True), ("p50_ms", "p50 ms", False), ("p99_ms", "p99 ms", False),
                      ("cpu_ms_per_write", "CPU ms/write", False)],
    "heartbeats": [("rate", "renewals/s", True), ("p50_ms", "p50 ms", False), ("p99_ms", "p99 ms", False)],
    "watch": [("p50_ms", "p50 ms", False), ("p99_ms", "p99 ms", False), ("max_ms", "max ms", False),
              ("spread_p99_ms", "first->last p99 ms", False), ("server_us_per_event", "server CPU us/event", False),
              ("client_us_per_event", "generator CPU us/event", False)],
    "watch-memory": [("rss_kib_per_watcher", "RSS KiB/watcher", False),
                     ("heap_kib_per_watcher", "heap KiB/watcher", False)],
    "visibility": [("p50_ms", "p50 ms", False), ("max_ms", "max ms", False)],
}
TITLES = {
    "registrations": "durable registrations, {} clients",
    "heartbeats": "heartbeats / renewals, {} instances",
    "watch": "write -> event from the acknowledgement, {} watchers",
    "watch-memory": "memory per watcher, {} watchers (RSS delta of the server; heap after a full GC, Ballast only)",
    "visibility": "new instance visible to a reader{}",
}
CHECKS = ["errors", "read_back", "missing", "duplicates", "out_of_order", "unexpected", "seen", "events"]


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def show(value):
    if value is None:
        return "-"
    return "{:,.1f}".format(value) if abs(value) >= 10 else "{:.2f}".format(value)


for (figure, size), targets in groups.items():
    columns = COLUMNS[figure]
    print()
    print(TITLES[figure].format(size if figure != "visibility" else ""))
    means = {}
    for target, rows in targets.items():
        cells = []
        means[target] = {}
        for key, label, _ in columns:
            values = [number(row.get(key)) for row in rows]
            means[target][key] = mean(values)
            if means[target][key] is not None:
                cells.append("{} {} ({})".format(label, show(means[target][key]), ", ".join(show(v) for v in values)))
        checks = []
        for check in CHECKS:
            values = [row[check] for row in rows if check in row]
            if values:
                if all(number(v) is not None for v in values):
                    checks.append("{} {:g}".format(check, sum(number(v) for v in values)))
                else:
                    checks.append("{} {}".format(check, " ".join(values)))
        print("  {:8} {}; {}".format(target, "; ".join(cells), ", ".join(checks)))
    if "ballast" in means:
        for peer in means:
            if peer == "ballast":
                continue
            ratios = []
            for key, label, higher_better in columns:
                a, b = means["ballast"].get(key), means[peer].get(key)
                if a is not None and b:
                    ratios.append("{} {:.2f}x{}".format(label, a / b, "" if higher_better else " (lower is better)"))
            if ratios:
                print("  ballast / {}: {}".format(peer, "; ".join(ratios)))
