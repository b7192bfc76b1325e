#!/usr/bin/env bash
# Cross-node delivery benchmark (issue 13, item 4): how late does a watcher on one node see
# a write acknowledged by another node of the same database?
#
#   ./mvnw -DskipTests package        # once, if target/ballast-*.jar does not exist yet
#   bench/crossnode.sh [options for WatchLatency.java, in bench/src/ballast/bench]
#
# Starts node A on its embedded PostgreSQL and node B on A's PostgreSQL (as an external
# database: spring.datasource.url), both with -Xmx1g on free loopback ports, waits for both
# to be healthy, then for each size in BENCH_WATCHERS (default "1 1000") runs
# WatchLatency.java with the watchers on B and the registrations and weight changes (20/s,
# 10 s warm-up, 30 s measured) on A: the latency from A's acknowledgement to B's
# event, every revision in order on every watcher. The path is A's commit and NOTIFY,
# B's listener, B's reader and writer threads.
#
# Environment: BENCH_WATCHERS, BENCH_HEALTH_TIMEOUT (seconds, default 120), BALLAST_JAR.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=bench/node.sh
source bench/node.sh
sizes="${BENCH_WATCHERS:-1 1000}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-120}"
stop_timeout=45
ulimit -n "$(ulimit -Hn)"

work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-bench.XXXXXX")"
data="$work/data-a"
server_pid=""
generator_pid=""
node_b_pid=""
stop_node_b() {
	if [[ -n "$node_b_pid" ]]; then
		kill "$node_b_pid" 2>/dev/null || true
		wait "$node_b_pid" 2>/dev/null || true
		node_b_pid=""
	fi
}
# Node B first (after the generator): it holds connections to A's PostgreSQL, which
# node.sh's cleanup stops with node A.
on_exit() {
	local rc=$?
	# errexit would end this handler at the (exit) below, before cleanup stops node A.
	set +e
	if [[ -n "${generator_pid:-}" ]]; then
		kill -TERM "$generator_pid" 2>/dev/null || true
		wait "$generator_pid" 2>/dev/null || true
		generator_pid=""
	fi
	stop_node_b
	(exit "$rc")
	cleanup
}
trap on_exit EXIT

wait_healthy() { # url pid log
	await_up "the node at $1" "$2" "$1/actuator/health" '"status":"UP"' "$health_timeout" "$3" || exit 1
}

port_a="$(free_port)"
began=$(now_ms)
java -Xmx1g -jar "$jar" --server.port="$port_a" --server.address=127.0.0.1 --ballast.data-dir="$data" \
	"${node_options[@]}" >"$work/a.log" 2>&1 &
server_pid=$!
wait_healthy "http://127.0.0.1:$port_a" "$server_pid" "$work/a.log"
echo "node A up in $(($(now_ms) - began)) ms (http://127.0.0.1:$port_a, embedded PostgreSQL)"
# postmaster.pid: line 1 the server's pid, line 4 its port.
pg_port="$(sed -n 4p "$data/postgres/postmaster.pid")"

port_b="$(free_port)"
began=$(now_ms)
java -Xmx1g -jar "$jar" --server.port="$port_b" --server.address=127.0.0.1 --ballast.data-dir="$work/data-b" \
	--spring.datasource.url="jdbc:postgresql://127.0.0.1:$pg_port/postgres" --spring.datasource.username=postgres \
	"${node_options[@]}" >"$work/b.log" 2>&1 &
node_b_pid=$!
wait_healthy "http://127.0.0.1:$port_b" "$node_b_pid" "$work/b.log"
echo "node B up in $(($(now_ms) - began)) ms (http://127.0.0.1:$port_b, node A's PostgreSQL on port $pg_port)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
for watchers in $sizes; do
	echo
	echo "======== $watchers watchers on node B, writes on node A ========"
	run_status=0
	java bench/src/ballast/bench/WatchLatency.java --url "http://127.0.0.1:$port_b" --write-url "http://127.0.0.1:$port_a" \
		--watchers "$watchers" --goal-p99-ms 20 --server-pid "$node_b_pid" "$@" &
	generator_pid=$!
	wait "$generator_pid" || run_status=$?
	generator_pid=""
	((run_status == 0)) || status=$run_status
done
exit "$status"
