#!/usr/bin/env bash
# Startup benchmark: process start -> /actuator/health UP, warm (the data directory and its
# embedded PostgreSQL cluster exist), for three ways of launching the same build:
#   jar        java -jar target/ballast-*.jar (the fat jar)
#   extracted  java -jar app/ballast-*.jar after `java -Djarmode=tools -jar ... extract`
#   aot        the extracted jar with the JDK's AOT cache (-XX:AOTCache, JDK 25), made by
#              one training run (-XX:AOTCacheOutput, -Dspring.context.exit=onRefresh)
#   spring-aot the same, also on the bean definitions generated at build time
#              (-Dspring.aot.enabled=true), with a cache trained that way
# Runs them in turn, BENCH_ROUNDS times (default 3), so that noise from other work on the
# machine spreads over all three, and prints each time and the median of each.
#
#   ./mvnw -DskipTests package && bench/startup.sh
#
# Environment: BENCH_ROUNDS, BALLAST_JAR, BENCH_HEALTH_TIMEOUT (s, default 90),
# BENCH_STOP_TIMEOUT (s, default 45).
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=bench/node.sh
source bench/node.sh

rounds="${BENCH_ROUNDS:-3}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-90}"
stop_timeout="${BENCH_STOP_TIMEOUT:-45}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-startup.XXXXXX")"
data="$work/data"
log="$work/server.log"
server_pid=""
generator_pid=""

# Starts the node with the given JVM arguments and jar, sets startup_ms to the time until
# health answered UP.
start_server() {
	local began deadline port
	port="$(free_port)"
	began=$(now_ms)
	deadline=$((began + health_timeout * 1000))
	java "$@" --server.port="$port" --server.address=127.0.0.1 --ballast.data-dir="$data" \
		"${node_options[@]}" >>"$log" 2>&1 &
	server_pid=$!
	until curl -fsS -m 2 "http://127.0.0.1:$port/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; do
		if ! kill -0 "$server_pid" 2>/dev/null || (($(now_ms) > deadline)); then
			echo "server did not become healthy within ${health_timeout}s; last lines of its log:" >&2
			tail -n 30 "$log" >&2
			return 1
		fi
		sleep 0.05
	done
	startup_ms=$(($(now_ms) - began))
}

# Stops an embedded PostgreSQL left running by a JVM that exited without closing its
# context (the training run exits right after the context refresh).
stop_orphan_postgres() {
	local pid
	pid="$(head -n1 "$data/postgres/postmaster.pid" 2>/dev/null || true)"
	if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || return 0
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
}

echo "jar: $jar"
echo "java: $(java -version 2>&1 | head -n1)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

java -Djarmode=tools -jar "$jar" extract --destination "$work/app" >/dev/null
extracted="$(ls "$work"/app/*.jar)"

# The cold start creates the cluster and applies the migrations; every later start is warm.
start_server -jar "$jar"
echo "cold start (initdb + migrations): $startup_ms ms"
stop_server >/dev/null

# Training: the same warm start, ending right after the context is refreshed; one cache
# per way of starting, since each loads other classes.
train() {
	local cache="$1" training_began
	shift
	training_began=$(now_ms)
	timeout "$health_timeout" java -XX:AOTCacheOutput="$cache" -Dspring.context.exit=onRefresh "$@" \
		-jar "$extracted" --server.port=0 --server.address=127.0.0.1 --ballast.data-dir="$data" \
		"${node_options[@]}" >>"$log" 2>&1 || true
	stop_orphan_postgres
	if [[ ! -s "$cache" ]]; then
		echo "the training run made no AOT cache; its log:" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
	echo "AOT cache $(basename "$cache"): $(du -h "$cache" | cut -f1) made in $(($(now_ms) - training_began)) ms"
}
train "$work/app.aot"
train "$work/app-spring.aot" -Dspring.aot.enabled=true

declare -A times=([jar]="" [extracted]="" [aot]="" [spring-aot]="")
for round in $(seq 1 "$rounds"); do
	for way in jar extracted aot spring-aot; do
		case "$way" in
			jar) start_server -jar "$jar" ;;
			extracted) start_server -jar "$extracted" ;;
			aot) start_server -XX:AOTCache="$work/app.aot" -jar "$extracted" ;;
			spring-aot) start_server -XX:AOTCache="$work/app-spring.aot" -Dspring.aot.enabled=true -jar "$extracted" ;;
		esac
		stop_server >/dev/null
		times[$way]+="$startup_ms "
		echo "round $round, $way: $startup_ms ms"
	done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "warm start to health UP, median of $rounds: jar $(median "${times[jar]}") ms," \
	"extracted $(median "${times[extracted]}") ms, extracted + AOT cache $(median "${times[aot]}") ms," \
	"extracted + AOT cache + Spring AOT $(median "${times[spring-aot]}") ms"
