#!/usr/bin/env bash
# Registration benchmark, end to end:
#
#   ./mvnw -DskipTests package        # once, if target/ballast-*.jar does not exist yet
#   bench/registrations.sh [options for Registrations.java, in bench/src/ballast/bench]
#
# 1. starts the packaged jar on a free loopback port with a fresh temporary data
#    directory and times process start -> /actuator/health UP ("cold": includes initdb
#    of the embedded PostgreSQL and the Flyway migrations);
# 2. stops it (SIGTERM) and starts it again on the same data directory ("warm");
# 3. runs Registrations.java with 8 clients against the warm server;
# 4. stops the server, removes the data directory, exits with the benchmark's status.
#
# Environment:
#   BALLAST_JAR          jar to run (default: target/ballast-*.jar)
#   BENCH_CLIENTS        clients (default 8)
#   BENCH_HEALTH_TIMEOUT seconds to wait for health UP (default 90)
#   BENCH_STOP_TIMEOUT   seconds to wait for a SIGTERM to stop the server (default 45)
#   BENCH_SERVER_LOG     where to keep the server's log (default: deleted with the temp dir)
# Extra arguments go to the Java program, e.g. --seconds 60 or --services 16.
set -euo pipefail

cd "$(dirname "$0")/.."

# The JDK, the jar, the admin token and node options, and stopping the node, cleanup on
# exit, a free port, a clock: shared with the other benchmarks.
# shellcheck source=bench/node.sh
source bench/node.sh
for tool in java curl; do
	command -v "$tool" >/dev/null || { echo "$tool is required on PATH" >&2; exit 1; }
done

clients="${BENCH_CLIENTS:-8}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-90}"
stop_timeout="${BENCH_STOP_TIMEOUT:-45}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-bench.XXXXXX")"
data="$work/data"
log="${BENCH_SERVER_LOG:-$work/server.log}"
: >"$log"
server_pid=""
generator_pid=""


# Starts the server and waits for health UP; prints the milliseconds from process start
# to the first UP answer.
start_server() {
	local began=$(now_ms)
	echo "---- start $(date -u +%FT%TZ) ----" >>"$log"
	java -jar "$jar" --server.port="$port" --ballast.data-dir="$data" "${node_options[@]}" >>"$log" 2>&1 &
	server_pid=$!
	await_up "the node" "$server_pid" "http://127.0.0.1:$port/actuator/health" '"status":"UP"' "$health_timeout" \
		"$log" || return 1
	startup_ms=$(($(now_ms) - began))
}

port="$(free_port)"
echo "jar: $jar"
echo "java: $(java -version 2>&1 | head -n1)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: http://127.0.0.1:$port, data dir $data"

start_server
cold_ms=$startup_ms
echo "cold start (fresh data dir, initdb + migrations): $cold_ms ms to health UP"
stop_server

start_server
warm_ms=$startup_ms
echo "warm start (same data dir): $warm_ms ms to health UP"

# In the background so that a signal to this script is handled at once (bash runs traps
# only between foreground commands); cleanup stops it.
status=0
java bench/src/ballast/bench/Registrations.java --url "http://127.0.0.1:$port" --clients "$clients" "$@" &
generator_pid=$!
wait "$generator_pid" || status=$?
generator_pid=""

stop_server
echo "startup: cold $cold_ms ms, warm $warm_ms ms (process start to /actuator/health UP)"
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
