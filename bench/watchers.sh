#!/usr/bin/env bash
# Watch fan-out benchmark: how late do N open event streams see a change, and what does
# an open stream cost the node?
#
#   ./mvnw -DskipTests package        # once, if target/ballast-*.jar does not exist yet
#   bench/watchers.sh [options for WatchLatency.java, in bench/src/ballast/bench]
#
# For each size in BENCH_WATCHERS (default "1000 10000"), on a freshly started node (so
# that one size's heap, JIT state and closed connections do not colour the next):
# 1. starts the packaged jar with -Xmx2g on a free loopback port and a fresh temporary
#    data directory, and waits for /actuator/health UP;
# 2. runs WatchLatency.java: registers 4 instances, measures the heap after a full GC,
#    opens the watchers (<= 500/s), measures the heap again, then changes weights at
#    20/s (10 s warm-up, 30 s measured) and prints the latency from each write to each
#    watcher's event;
# 3. beside it on the same node, when the size is BENCH_ADS_SIZE (default 1000), runs
#    AdsLatency.java: that many ADS streams (one connection each, ACKing as grpc-java
#    does) on another service's endpoints, the heap after a full GC before and after
#    opening them, then weight changes at the same rate: write -> EDS pushed;
# 4. stops the node and lists the WARN/ERROR lines of its log.
# Exits non-zero when any size failed (a watcher missing or reordering an event included).
#
# Environment:
#   BENCH_WATCHERS       sizes to run, in order (default "1000 10000")
#   BENCH_HEAP           the node's -Xmx (default 2g)
#   BALLAST_JAR          jar to run (default: target/ballast-*.jar)
#   BENCH_HEALTH_TIMEOUT seconds to wait for health UP (default 90)
#   BENCH_STOP_TIMEOUT   seconds to wait for a SIGTERM to stop the server (default 45)
#   BENCH_SERVER_LOG     where to keep the server's log (default: deleted with the temp dir)
#   BENCH_ADS_SIZE       the size beside which the ADS benchmark runs (default 1000; none to skip)
# Extra arguments go to the Java program, e.g. --rate 50 or --seconds 60.
set -euo pipefail

cd "$(dirname "$0")/.."

# The JDK, the jar, the admin token and node options, and stopping the node, cleanup on
# exit, a free port, a clock: shared with the other benchmarks.
# shellcheck source=bench/node.sh
source bench/node.sh
for tool in java jcmd curl; do
	command -v "$tool" >/dev/null || { echo "$tool is required on PATH" >&2; exit 1; }
done

sizes="${BENCH_WATCHERS:-1000 10000}"
heap="${BENCH_HEAP:-2g}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-90}"
stop_timeout="${BENCH_STOP_TIMEOUT:-45}"

# The node and the client each hold one socket per watcher; both inherit this limit.
max_watchers=0
for n in $sizes; do
	if ((n > max_watchers)); then max_watchers=$n; fi
done
hard_limit="$(ulimit -Hn)"
if [[ "$hard_limit" != unlimited ]] && ((hard_limit < max_watchers + 1000)); then
	echo "open-file hard limit $hard_limit is too low for $max_watchers watchers (need ~$((max_watchers + 1000)))" >&2
	exit 1
fi
ulimit -n "$hard_limit"

work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-bench.XXXXXX")"
data=""
log="${BENCH_SERVER_LOG:-$work/server.log}"
: >"$log"
server_pid=""
generator_pid=""


start_server() {
	local began=$(now_ms) deadline
	deadline=$((began + health_timeout * 1000))
	echo "---- start $(date -u +%FT%TZ) ----" >>"$log"
	java "-Xmx$heap" -jar "$jar" --server.port="$port" --server.address=127.0.0.1 --ballast.data-dir="$data" \
		--ballast.xds.port="$xds_port" "${node_options[@]}" >>"$log" 2>&1 &
	server_pid=$!
	until curl -fsS -m 2 "http://127.0.0.1:$port/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; do
		if ! kill -0 "$server_pid" 2>/dev/null; then
			server_pid=""
			echo "server exited during startup; last lines of its log:" >&2
			tail -n 40 "$log" >&2
			return 1
		fi
		if (($(now_ms) > deadline)); then
			echo "server not healthy within ${health_timeout}s; last lines of its log:" >&2
			tail -n 40 "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "server up in $(($(now_ms) - began)) ms (pid $server_pid, -Xmx$heap, http://127.0.0.1:$port)"
}

echo "jar: $jar"
echo "java: $(java -version 2>&1 | head -n1)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), open files $(ulimit -n)"

# AdsLatency needs grpc-java and Envoy's API: the server's own runtime dependencies (so it
# lives apart, in bench/src-xds, from the JDK-only programs that scripts compile together).
ads_size="${BENCH_ADS_SIZE:-1000}"
ads_classpath=""
if [[ "$ads_size" != none ]]; then
	./mvnw -q -B -pl :ballast dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/classpath.txt" \
		>"$work/classpath.log" 2>&1 || { echo "could not resolve the ADS benchmark's class path" >&2; exit 1; }
	ads_classpath="$(cat "$work/classpath.txt")"
fi

status=0
for watchers in $sizes; do
	echo
	echo "======== $watchers watchers ========"
	port="$(free_port)"
	xds_port="$(free_port)"
	data="$work/data-$watchers"
	start_server
	# In the background so that a signal to this script is handled at once (bash runs
	# traps only between foreground commands); cleanup stops it.
	# The embedded PostgreSQL detaches from the JVM; its CPU is counted through its pid.
	pg_pid="$(head -n1 "$data/postgres/postmaster.pid" 2>/dev/null || echo 0)"
	run_status=0
	java bench/src/ballast/bench/WatchLatency.java --url "http://127.0.0.1:$port" --watchers "$watchers" \
		--server-pid "$server_pid" --postgres-pid "$pg_pid" "$@" &
	generator_pid=$!
	wait "$generator_pid" || run_status=$?
	generator_pid=""
	((run_status == 0)) || status=$run_status
	if [[ "$watchers" == "$ads_size" ]]; then
		echo
		echo "======== $ads_size ADS streams, same node ========"
		java -cp "$ads_classpath" bench/src-xds/ballast/bench/AdsLatency.java --url "http://127.0.0.1:$port" \
			--xds "127.0.0.1:$xds_port" --streams "$ads_size" --server-pid "$server_pid" &
		generator_pid=$!
		run_status=0
		wait "$generator_pid" || run_status=$?
		generator_pid=""
		((run_status == 0)) || status=$run_status
	fi
	stop_server
done

# Spring's WARN/ERROR lines, exceptions, and PostgreSQL's own WARNING/ERROR/FATAL lines
# (the embedded server's output is relayed at INFO level).
problems="$(grep -E '^[0-9TZ:.-]+ +(WARN|ERROR)|Exception|(WARNING|ERROR|FATAL|PANIC): ' "$log" |
	grep -v 'SpringDocAppInitializer' || true)"
if [[ -n "$problems" ]]; then
	echo "server log warnings/errors ($(wc -l <<<"$problems") lines, first 20):"
	head -n 20 <<<"$problems" | cut -c1-300
fi
[[ -n "${BENCH_SERVER_LOG:-}" ]] && echo "server log kept in $log"
exit "$status"
