#!/usr/bin/env bash
# Zone views benchmark: what per-zone views (docs/locality.md) cost a node against the flat
# view, in one run, alternating.
#
#   ./mvnw -DskipTests package        # once, if target/ballast-*.jar does not exist yet
#   bench/zones.sh [options for ZoneViews.java, in bench/src/ballast/bench]
#
# 1. starts the packaged jar with -Xmx2g on a free loopback port and a fresh temporary data
#    directory, and waits for /actuator/health UP;
# 2. runs ZoneViews.java: one service of 10 zones of 3 instances under a locality
#    policy; 10,000 flat watchers, then 10,000 zone watchers (1,000 per zone), alternating
#    for 2 rounds; in each phase 20 weight changes a second (5 s warm-up, 20 s measured),
#    round robin over the zones; it prints one RESULT line per phase (CPU of the JVM and
#    PostgreSQL per change and per event sent, events per change, write -> event p50/p99)
#    and fails when a watcher missed a change or got one it was not owed;
# 3. stops the node and lists the WARN/ERROR lines of its log.
#
# A tiny run that proves it works: bench/zones.sh --watchers 100 --seconds 3 --rounds 1
#
# Environment:
#   BENCH_HEAP           the node's -Xmx (default 2g)
#   BALLAST_JAR          jar to run (default: target/ballast-*.jar)
#   BENCH_HEALTH_TIMEOUT seconds to wait for health UP (default 90)
#   BENCH_STOP_TIMEOUT   seconds to wait for a SIGTERM to stop the server (default 45)
#   BENCH_SERVER_LOG     where to keep the server's log (default: deleted with the temp dir)
set -euo pipefail

cd "$(dirname "$0")/.."

# The JDK, the jar, the admin token and node options, stopping the node, cleanup on exit, a
# free port, a clock: shared with the other benchmarks.
# shellcheck source=bench/node.sh
source bench/node.sh
for tool in java curl; do
	command -v "$tool" >/dev/null || { echo "$tool is required on PATH" >&2; exit 1; }
done

heap="${BENCH_HEAP:-2g}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-90}"
stop_timeout="${BENCH_STOP_TIMEOUT:-45}"

# The node and the client each hold one socket per watcher; both inherit this limit.
hard_limit="$(ulimit -Hn)"
if [[ "$hard_limit" != unlimited ]] && ((hard_limit < 11000)); then
	echo "open-file hard limit $hard_limit is too low for 10,000 watchers (need ~11,000)" >&2
	exit 1
fi
ulimit -n "$hard_limit"

work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-bench.XXXXXX")"
data="$work/data"
log="${BENCH_SERVER_LOG:-$work/server.log}"
: >"$log"
server_pid=""
generator_pid=""
port="$(free_port)"

echo "jar: $jar"
echo "java: $(java -version 2>&1 | head -n1)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), open files $(ulimit -n)"

began=$(now_ms)
java "-Xmx$heap" -jar "$jar" --server.port="$port" --server.address=127.0.0.1 --ballast.data-dir="$data" \
	"${node_options[@]}" >>"$log" 2>&1 &
server_pid=$!
await_up Ballast "$server_pid" "http://127.0.0.1:$port/actuator/health" '"status":"UP"' "$health_timeout" "$log"
echo "server up in $(($(now_ms) - began)) ms (pid $server_pid, -Xmx$heap, http://127.0.0.1:$port)"
# The embedded PostgreSQL detaches from the JVM; its CPU is counted through its pid.
pg_pid="$(head -n1 "$data/postgres/postmaster.pid" 2>/dev/null || echo 0)"

status=0
# In the background so that a signal to this script is handled at once (bash runs traps
# only between foreground commands); cleanup stops it.
java bench/src/ballast/bench/ZoneViews.java --url "http://127.0.0.1:$port" --pids "$server_pid,$pg_pid" "$@" &
generator_pid=$!
wait "$generator_pid" || status=$?
generator_pid=""
stop_server

# Spring's WARN/ERROR lines, exceptions, and PostgreSQL's own WARNING/ERROR/FATAL lines.
problems="$(grep -E '^[0-9TZ:.-]+ +(WARN|ERROR)|Exception|(WARNING|ERROR|FATAL|PANIC): ' "$log" |
	grep -v 'SpringDocAppInitializer' || true)"
if [[ -n "$problems" ]]; then
	echo "server log warnings/errors ($(wc -l <<<"$problems") lines, first 20):"
	head -n 20 <<<"$problems" | cut -c1-300
fi
[[ -n "${BENCH_SERVER_LOG:-}" ]] && echo "server log kept in $log"
exit "$status"
