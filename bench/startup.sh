#!/usr/bin/env bash
# Startup benchmark: process start -> /actuator/health UP, warm (the data directory and its
# embedded PostgreSQL cluster exist), for three ways of launching the same build:
#   jar        java -jar target/ballast-*.jar (the fat jar)
#   extracted  java -jar app/ballast-*.jar after `java -Djarmode=tools -jar ... extract`
#   aot        the extracted jar with the JDK's AOT cache (-XX:AOTCache, JDK 25), made by
#              one training run (-XX:AOTCacheOutput): a start to health UP, a few first
#              requests, then SIGTERM (the JVM writes the cache as it exits)
#   spring-aot the same, also on the bean definitions generated at build time
#              (-Dspring.aot.enabled=true), with a cache trained that way
# Runs them in turn, BENCH_ROUNDS times (default 3), so that noise from other work on the
# machine spreads over all of them, and prints each time and the median of each, with the
# CPU time the JVM (all its threads) and the embedded PostgreSQL had used by then: other
# work on the machine stretches the time to healthy, much less the CPU it took.
#
#   ./mvnw -DskipTests package && bench/startup.sh
#
# Environment: BENCH_ROUNDS, BALLAST_JAR, BENCH_HEALTH_TIMEOUT (s, default 90),
# BENCH_STOP_TIMEOUT (s, default 45), BENCH_TRAINING_STOP_TIMEOUT (s, default 300: the
# training run's stop includes writing the cache).
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=bench/node.sh
source bench/node.sh

rounds="${BENCH_ROUNDS:-3}"
health_timeout="${BENCH_HEALTH_TIMEOUT:-90}"
stop_timeout="${BENCH_STOP_TIMEOUT:-45}"
training_stop_timeout="${BENCH_TRAINING_STOP_TIMEOUT:-300}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-startup.XXXXXX")"
data="$work/data"
log="$work/server.log"
server_pid=""
generator_pid=""

clock_ticks="$(getconf CLK_TCK)"

# CPU time (user + system) in ms a process and its reaped children used.
cpu_ms() {
	local pid="$1"
	# Fields 14-17 of /proc/PID/stat, counted after the command name, which may hold spaces.
	local stat
	stat="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null || true)"
	awk -v tick="$clock_ticks" '{ t = $12 + $13 + $14 + $15 } END { print int(t * 1000 / tick) }' <<<"$stat"
}

# CPU time of the embedded PostgreSQL: the postmaster and each of its processes.
postgres_cpu_ms() {
	local postmaster total=0 pid
	postmaster="$(head -n1 "$data/postgres/postmaster.pid" 2>/dev/null || true)"
	[[ "$postmaster" =~ ^[0-9]+$ ]] || { echo 0; return; }
	for pid in "$postmaster" $(pgrep -P "$postmaster" || true); do
		total=$((total + $(cpu_ms "$pid")))
	done
	echo "$total"
}

# Starts the node with the given JVM arguments and jar, sets startup_ms to the time until
# health answered UP, and jvm_cpu_ms and postgres_cpu_ms to the CPU used until then.
start_server() {
	local began port
	port="$(free_port)"
	began=$(now_ms)
	java "$@" --server.port="$port" --server.address=127.0.0.1 --ballast.data-dir="$data" \
		"${node_options[@]}" >>"$log" 2>&1 &
	server_pid=$!
	await_up "the node" "$server_pid" "http://127.0.0.1:$port/actuator/health" '"status":"UP"' "$health_timeout" \
		"$log" || return 1
	startup_ms=$(($(now_ms) - began))
	jvm_cpu_ms="$(cpu_ms "$server_pid")"
	postgres_cpu_ms="$(postgres_cpu_ms)"
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

# Training: the same warm start up to health UP, then the requests a node answers first
# (health, a read of the registry, a metrics scrape), then SIGTERM: the JVM writes the cache
# as it exits, and the node stops its PostgreSQL as on any stop. One cache per way of
# starting, since each loads other classes. A training that ends at the context refresh
# (-Dspring.context.exit=onRefresh) leaves out Tomcat's start, the first requests and their
# classes, and leaves the embedded PostgreSQL running.
train() {
	local cache="$1" training_began port
	shift
	training_began=$(now_ms)
	port="$(free_port)"
	java -XX:AOTCacheOutput="$cache" "$@" -jar "$extracted" --server.port="$port" --server.address=127.0.0.1 \
		--ballast.data-dir="$data" "${node_options[@]}" >>"$log" 2>&1 &
	server_pid=$!
	await_up "the training run" "$server_pid" "http://127.0.0.1:$port/actuator/health" '"status":"UP"' \
		"$health_timeout" "$log" || exit 1
	for _ in 1 2 3 4 5; do
		curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$port/actuator/health"
		curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$port/actuator/health/readiness"
		bench_curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$port/v1/services"
	done
	bench_curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$port/actuator/prometheus"
	# The JVM assembles the cache as it exits, in a second JVM it starts for that: on a
	# loaded machine that takes longer than a node's stop.
	stop_timeout="$training_stop_timeout" stop_server >/dev/null
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
declare -A cpus=([jar]="" [extracted]="" [aot]="" [spring-aot]="")
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
		cpus[$way]+="$((jvm_cpu_ms + postgres_cpu_ms)) "
		echo "round $round, $way: $startup_ms ms, CPU $jvm_cpu_ms ms JVM + $postgres_cpu_ms ms PostgreSQL," \
			"load average $(cut -d' ' -f1 /proc/loadavg)"
	done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "warm start to health UP, median of $rounds: jar $(median "${times[jar]}") ms," \
	"extracted $(median "${times[extracted]}") ms, extracted + AOT cache $(median "${times[aot]}") ms," \
	"extracted + AOT cache + Spring AOT $(median "${times[spring-aot]}") ms"
echo "CPU (JVM + PostgreSQL) to health UP, median of $rounds: jar $(median "${cpus[jar]}") ms," \
	"extracted $(median "${cpus[extracted]}") ms, extracted + AOT cache $(median "${cpus[aot]}") ms," \
	"extracted + AOT cache + Spring AOT $(median "${cpus[spring-aot]}") ms"
