#!/usr/bin/env bash
# Side by side (issue 13, item 6): starts Ballast (the packaged jar, embedded PostgreSQL),
# a Eureka server (bench/eureka-server, built here with the repository's Maven wrapper) and
# etcd (Debian's etcd-server, installed when missing) on loopback, drives each with the same
# generator (Compare.java and its sibling files in bench/src/ballast/bench: one HTTP/1.1
# keep-alive connection per client thread), alternating A/B/A/B, and prints every figure
# with its ratio:
#
#   registrations with 8 clients (rate, p50/p99, CPU per write) — Ballast, etcd, Eureka
#   write → event with 1, 1,000, 10,000 watchers, memory each   — Ballast SSE, etcd watch
#   a new instance visible to a reader                          — Ballast, Eureka, etcd
#   heartbeats / renewals at 20,000 and 100,000 instances       — Ballast, Eureka, etcd
#   (last: registering 100,000 Ballast instances takes minutes)
#
#   ./mvnw -DskipTests package && bench/compare.sh           # full run, ~20 min
#   bench/compare.sh --quick                                  # small sizes, ~4 min
#   bench/compare.sh --replicated                             # replicated writes, ~4 min
#
# --replicated measures registrations alone, each store replicated on loopback: Ballast on
# a PostgreSQL 15 primary with a synchronous streaming standby (Debian's postgresql-15;
# a commit returns once the standby has flushed it) against a three-member etcd cluster
# (a put returns once a majority has it on disk), the same generator and clients, one
# etcd member as the URL as Ballast's one node.
#
# Options: --quick, --replicated, --rounds N (2), --skip LIST (comma-separated:
# registrations,heartbeats, watch,visibility), --watch-sizes LIST (comma-separated watcher
# counts for write → event, e.g. 1 for the single-watcher latency alone; default
# 1,1000,10000, --quick 1,100,1000).
# Knobs (environment): BALLAST_JAR, BENCH_HEAP (2g, both JVM servers),
# BENCH_KEEP=dir (copy the logs, results and a top sample every 10 s there),
# BENCH_HEALTH_TIMEOUT (600 s), BENCH_JFR=file.jfr (record a JFR profile of Ballast).
set -euo pipefail
cd "$(dirname "$0")/.."

# The JDK, the jar, the admin token, stopping Ballast, cleanup on exit, now_ms.
# shellcheck source=bench/node.sh
source bench/node.sh

quick=0
replicated=0
rounds=2
skip=""
sizes_wanted=""
while (($#)); do
	case "$1" in
	--quick) quick=1 ;;
	--replicated) replicated=1 ;;
	--rounds) rounds="$2"; shift ;;
	--skip) skip="$2"; shift ;;
	--watch-sizes) sizes_wanted="$2"; shift ;;
	-h | --help) sed -n '2,31p' "$0"; exit 0 ;;
	*) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
((replicated)) && skip="heartbeats,watch,visibility"
wanted() { [[ ",$skip," != *",$1,"* ]]; }

if ((quick)); then
	hb_sizes=(2000 5000); watch_sizes=(1 100 1000); reg_settle_max=2; reg_warmup=3; reg_seconds=4; hb_warmup=2; hb_seconds=4
	watch_warmup=1; watch_seconds=3; vis_samples=4; vis_spread=4
else
	# Before round 1 each server is loaded until it has settled (settle_registrations, at
	# most 18 windows of 10 s): Ballast's JIT compiles under this load for minutes on two
	# shared cores, and a figure taken meanwhile is the compiler's (bench/README.md).
	hb_sizes=(20000 100000); watch_sizes=(1 1000 10000); reg_settle_max=18; reg_warmup=10; reg_seconds=10; hb_warmup=5; hb_seconds=10
	watch_warmup=2; watch_seconds=10; vis_samples=8; vis_spread=12
fi
if [[ -n "$sizes_wanted" ]]; then
	[[ "$sizes_wanted" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || {
		echo "--watch-sizes wants positive counts separated by commas; got '$sizes_wanted'" >&2
		exit 2
	}
	IFS=, read -r -a watch_sizes <<<"$sizes_wanted"
fi
heap="${BENCH_HEAP:-2g}"
stop_timeout=45

# Streams need a file descriptor each in the generator and in the server.
ulimit -Hn 1048576 2>/dev/null || true
ulimit -n "$(ulimit -Hn)"
most=0
for size in "${watch_sizes[@]}"; do ((size > most)) && most=$size; done
need=$((most + 2000))
if [[ "$(ulimit -n)" != unlimited ]] && (($(ulimit -n) < need)); then
	echo "open-file limit $(ulimit -n) is below the $need that $most watchers need" >&2
	exit 1
fi

command -v etcd >/dev/null || need_packages etcd-server
((replicated == 0)) || need_packages postgresql-15
need_commands java javac jcmd curl etcd

work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-compare.XXXXXX")"
data="$work/ballast-data"
server_pid=""
generator_pid=""
eureka_pid=""
etcd_pid=""
results="$work/results"
: >"$results"

top_pid=""
# --replicated: the PostgreSQL primary and standby, and the etcd members (space-separated).
postgres_pids=""
stop_peers() {
	for pid in $eureka_pid $etcd_pid $top_pid; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in $eureka_pid $etcd_pid; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	eureka_pid=""
	etcd_pid=""
	top_pid=""
}
# After Ballast: it holds connections to the primary.
stop_replicated_postgres() {
	# SIGINT: PostgreSQL's fast shutdown.
	for pid in $postgres_pids; do kill -INT "$pid" 2>/dev/null || true; done
	for pid in $postgres_pids; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	postgres_pids=""
}
finish() {
	stop_peers
	stop_server
	stop_replicated_postgres
	# A node stopped while it starts can leave its PostgreSQL behind.
	stop_postgres "$data"
	if [[ -n "${BENCH_KEEP:-}" && -d "${work:-}" ]]; then
		mkdir -p "$BENCH_KEEP" && cp "$work"/*.log "$results" "$BENCH_KEEP"/ 2>/dev/null || true
	fi
}
# node.sh's cleanup stops Ballast, removes the work directory and exits with the status;
# the peers go first.
# errexit off first: (exit "$status") hands cleanup the status and must not end the trap.
trap 'status=$?; set +e; finish; (exit "$status"); cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

eureka_jar=bench/eureka-server/target/eureka-server.jar
if ((replicated == 0)) && { [[ ! -f "$eureka_jar" ]] || [[ -n "$(find bench/eureka-server/pom.xml bench/eureka-server/src -newer "$eureka_jar" -print -quit)" ]]; }; then
	echo "building the Eureka server (bench/eureka-server)"
	./mvnw -q -B -f bench/eureka-server/pom.xml -DskipTests package >"$work/eureka-build.log" 2>&1 || {
		tail -n 40 "$work/eureka-build.log" >&2
		exit 1
	}
fi
echo "compiling the generator"
javac -d "$work/classes" bench/src/ballast/bench/*.java

# Four distinct free ports below Linux's ephemeral range (32768 up), where the embedded
# PostgreSQL's port and the generator's own connections are taken from: a port picked there
# could be taken by one of them before its server binds it.
ports=()
while ((${#ports[@]} < 10)); do
	port=$((20000 + RANDOM % 12000))
	if [[ " ${ports[*]} " != *" $port "* ]] && ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		ports+=("$port")
	fi
done
ballast_port=${ports[0]} eureka_port=${ports[1]} etcd_port=${ports[2]} etcd_peer_port=${ports[3]}
primary_port=${ports[4]} standby_port=${ports[5]}
etcd_ports=("$etcd_port" "${ports[6]}" "${ports[7]}") etcd_peer_ports=("$etcd_peer_port" "${ports[8]}" "${ports[9]}")
ballast="http://127.0.0.1:$ballast_port"
eureka="http://127.0.0.1:$eureka_port"
etcd_url="http://127.0.0.1:$etcd_port"

began=$(now_ms)
jfr=()
if [[ -n "${BENCH_JFR:-}" ]]; then
	jfr=("-XX:StartFlightRecording=filename=$BENCH_JFR,settings=profile")
fi
pg_bin=/usr/lib/postgresql/15/bin
# --replicated: a PostgreSQL 15 primary and its synchronous streaming standby from Debian's
# binaries, durable as Ballast's embedded one (fsync and synchronous_commit on); a commit
# returns once the standby has flushed it. As root they run as Debian's postgres user
# (PostgreSQL refuses root).
start_replicated_postgres() {
	local as=() dir="$work/postgres"
	mkdir -p "$dir"
	if (($(id -u) == 0)); then
		as=(setpriv --reuid postgres --regid postgres --init-groups)
		chmod 711 "$work"
		chown postgres:postgres "$dir"
	fi
	"${as[@]}" "$pg_bin/initdb" -D "$dir/primary" -U postgres --auth=trust -E UTF8 >"$work/initdb.log" 2>&1
	cat >>"$dir/primary/postgresql.conf" <<-CONF
		listen_addresses = '127.0.0.1'
		port = $primary_port
		unix_socket_directories = '$dir'
		max_connections = 100
		fsync = on
		synchronous_commit = on
		wal_level = replica
		max_wal_senders = 5
		synchronous_standby_names = '*'
		wal_receiver_status_interval = 1s
	CONF
	"${as[@]}" "$pg_bin/pg_ctl" -D "$dir/primary" -l "$dir/primary.log" -w -t 60 start >/dev/null
	"${as[@]}" "$pg_bin/pg_basebackup" -D "$dir/standby" -h 127.0.0.1 -p "$primary_port" -U postgres -R -X stream \
		>"$work/basebackup.log" 2>&1
	echo "port = $standby_port" >>"$dir/standby/postgresql.conf"
	"${as[@]}" "$pg_bin/pg_ctl" -D "$dir/standby" -l "$dir/standby.log" -w -t 60 start >/dev/null
	postgres_pids="$(head -n1 "$dir/primary/postmaster.pid") $(head -n1 "$dir/standby/postmaster.pid")"
	local deadline=$(($(now_ms) + 60000))
	until [[ "$("$pg_bin/psql" -X -At -h 127.0.0.1 -p "$primary_port" -U postgres -d postgres \
		-c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'" 2>/dev/null)" == 1 ]]; do
		if (($(now_ms) > deadline)); then
			echo "the standby did not become synchronous within 60 s" >&2
			tail -n 20 "$dir/standby.log" >&2
			exit 1
		fi
		sleep 0.2
	done
	echo "PostgreSQL primary on $primary_port, synchronous standby on $standby_port"
}

datasource=()
if ((replicated)); then
	start_replicated_postgres
	datasource=(--spring.datasource.url="jdbc:postgresql://127.0.0.1:$primary_port/postgres" --spring.datasource.username=postgres)
fi
java "-Xmx$heap" "${jfr[@]}" -jar "$jar" --server.port="$ballast_port" --server.address=127.0.0.1 --ballast.data-dir="$data" \
	"${datasource[@]}" "${node_options[@]}" >"$work/ballast.log" 2>&1 &
server_pid=$!
if ((replicated)); then
	# Three members, durable like the others: every put waits for a majority's WAL fsync.
	cluster_members=""
	for m in 0 1 2; do cluster_members+="${cluster_members:+,}m$m=http://127.0.0.1:${etcd_peer_ports[m]}"; done
	for m in 0 1 2; do
		etcd --name "m$m" --data-dir "$work/etcd-$m" --listen-client-urls "http://127.0.0.1:${etcd_ports[m]}" \
			--advertise-client-urls "http://127.0.0.1:${etcd_ports[m]}" --listen-peer-urls "http://127.0.0.1:${etcd_peer_ports[m]}" \
			--initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer_ports[m]}" --initial-cluster "$cluster_members" \
			--initial-cluster-state new --log-level warn >"$work/etcd-$m.log" 2>&1 &
		etcd_pid+="${etcd_pid:+ }$!"
	done
else
	java "-Xmx$heap" -jar "$eureka_jar" --server.port="$eureka_port" --server.address=127.0.0.1 >"$work/eureka.log" 2>&1 &
	eureka_pid=$!
	# Durable like the others: every put waits for its WAL fsync (etcd's default).
	etcd --name bench --data-dir "$work/etcd" --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
		--listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
		--initial-cluster "bench=http://127.0.0.1:$etcd_peer_port" --log-level warn >"$work/etcd.log" 2>&1 &
	etcd_pid=$!
fi

wait_up() { # name pid url pattern
	await_up "$1" "$2" "$3" "$4" "${BENCH_HEALTH_TIMEOUT:-600}" "$work/$1.log" || exit 1
	echo "$1 up in $(($(now_ms) - began)) ms (pid $2, $3)"
}
wait_up ballast "$server_pid" "$ballast/actuator/health" '"UP"'
if ((replicated)); then
	for m in 0 1 2; do
		wait_up "etcd-$m" "$(cut -d' ' -f$((m + 1)) <<<"$etcd_pid")" "http://127.0.0.1:${etcd_ports[m]}/health" '"health":"true"'
	done
	pg_pid="${postgres_pids// /,}"
else
	wait_up eureka "$eureka_pid" "$eureka/eureka/apps" 'applications'
	wait_up etcd "$etcd_pid" "$etcd_url/health" '"health":"true"'
	pg_pid="$(head -n1 "$data/postgres/postmaster.pid")"
fi
# Where the CPU goes, for the notes: the busiest processes every 10 s.
if command -v top >/dev/null; then
	top -b -d 10 -w 200 >"$work/top.log" 2>&1 &
	top_pid=$!
fi

if ((replicated)); then
	echo "jar: $jar on PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') primary + synchronous standby (127.0.0.1:$primary_port, :$standby_port);"
	echo "etcd: $(etcd --version | head -n1), three members (HTTP/JSON gateway of m0, fsync on); java: $(java -version 2>&1 | head -n1)"
else
	echo "jar: $jar; eureka: $eureka_jar (Spring Cloud 2025.1.4, self-preservation off, read-only response cache on, 30 s);"
	echo "etcd: $(etcd --version | head -n1) (HTTP/JSON gateway, fsync on); java: $(java -version 2>&1 | head -n1)"
fi
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"

# Runs the generator in the background, so that a signal to this script is handled at once
# (bash runs traps only between foreground commands). Its RESULT lines are collected.
generate() {
	calls=$((calls + 1))
	local out="$work/generator-$calls.out"
	java -Xmx1g -cp "$work/classes" ballast.bench.Compare "$@" >"$out" 2>&1 &
	generator_pid=$!
	tail -n +1 -s 0.2 -f --pid="$generator_pid" "$out" &
	local tail_pid=$! status=0
	wait "$generator_pid" || status=$?
	generator_pid=""
	wait "$tail_pid" 2>/dev/null || true
	grep '^RESULT' "$out" >>"$results" || true
	cat "$out" >>"$work/generator.log"
	return "$status"
}
failed=0
calls=0
run() { generate "$@" || { echo "FAILED: $*" >&2; failed=1; }; }

# Loads one server with registrations, window after window of reg_seconds (not figures),
# until two windows in a row agree within 10% in rate and in CPU per write, or
# reg_settle_max windows passed: a JIT still compiling, a cache still filling, show as a
# rate that still climbs. Says how many windows it took, or that it did not settle.
settle_registrations() {
	local target="$1" window out line rate cpu last_rate="" last_cpu=""
	for window in $(seq "$reg_settle_max"); do
		out="$work/settle-$target-$window.out"
		java -Xmx1g -cp "$work/classes" ballast.bench.Compare registrations --target "$target" \
			--url "$(url_of "$target")" --pids "$(pids_of "$target")" --warmup 0 --seconds "$reg_seconds" >"$out" 2>&1 || {
			cat "$out" >&2
			echo "FAILED: settling $target" >&2
			failed=1
			return
		}
		line="$(grep '^RESULT' "$out" | tail -n 1)"
		rate="$(sed -n 's/.* rate=\([0-9.]*\).*/\1/p' <<<"$line")"
		cpu="$(sed -n 's/.* cpu_ms_per_write=\([0-9.]*\).*/\1/p' <<<"$line")"
		echo "settling $target: window $window rate=$rate cpu_ms_per_write=${cpu:-?}"
		if [[ -n "$last_rate" ]] && python3 -c '
import sys
r, lr, c, lc = (float(x) if x else None for x in sys.argv[1:5])
close = lambda a, b: b is None or a is None or abs(a - b) <= 0.10 * b
sys.exit(0 if close(r, lr) and close(c, lc) else 1)' "$rate" "$last_rate" "$cpu" "$last_cpu"; then
			echo "settled $target after $window windows of ${reg_seconds} s"
			return
		fi
		last_rate="$rate" last_cpu="$cpu"
	done
	echo "settling $target: not settled after $reg_settle_max windows of ${reg_seconds} s (the figures follow all the same)"
}

# The machine's load when a figure starts: figures taken while other work ran are noise.
section() { echo; echo "==== $* [$(date -u +%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)]"; }
url_of() { case "$1" in ballast) echo "$ballast" ;; eureka) echo "$eureka" ;; etcd) echo "$etcd_url" ;; esac; }
pid_of() { case "$1" in ballast) echo "$server_pid" ;; etcd) echo "$etcd_pid" ;; esac; }
pids_of() { case "$1" in ballast) echo "$server_pid,$pg_pid" ;; eureka) echo "$eureka_pid" ;; etcd) echo "${etcd_pid// /,}" ;; esac; }

if wanted registrations; then
	registries=(ballast etcd eureka)
	replicas=""
	if ((replicated)); then
		registries=(ballast etcd)
		replicas=", replicated: PostgreSQL primary + synchronous standby against three etcd members"
	fi
	section "durable registrations, 8 clients$replicas (each server loaded until settled, then ${reg_warmup} s warm-up and ${reg_seconds} s measured, $rounds rounds)"
	for target in "${registries[@]}"; do
		settle_registrations "$target"
	done
	for round in $(seq "$rounds"); do
		for target in "${registries[@]}"; do
			run registrations --target "$target" --url "$(url_of "$target")" --pids "$(pids_of "$target")" \
				--warmup "$reg_warmup" --seconds "$reg_seconds"
		done
	done
fi

if wanted watch; then
	for size in "${watch_sizes[@]}"; do
		section "write → event, $size watchers (Ballast SSE, etcd watch), 20 writes/s"
		for round in $(seq "$rounds"); do
			for target in ballast etcd; do
				run watch --target "$target" --url "$(url_of "$target")" --pid "$(pid_of "$target")" --watchers "$size" \
					--warmup "$watch_warmup" --seconds "$watch_seconds"
			done
		done
	done
fi

if wanted visibility; then
	section "a new instance visible to a reader ($vis_samples instances over ${vis_spread} s per round)"
	for round in $(seq "$rounds"); do
		for target in ballast eureka etcd; do
			run visibility --target "$target" --url "$(url_of "$target")" --samples "$vis_samples" --spread "$vis_spread"
		done
	done
fi

if wanted heartbeats; then
	from=0
	for size in "${hb_sizes[@]}"; do
		section "heartbeats / renewals, $size instances, 32 connections"
		for target in eureka etcd ballast; do
			run heartbeats --target "$target" --url "$(url_of "$target")" --instances "$size" --from "$from" --seconds 0
		done
		for round in $(seq "$rounds"); do
			for target in ballast eureka etcd; do
				run heartbeats --target "$target" --url "$(url_of "$target")" --instances "$size" --from "$size" \
					--warmup "$hb_warmup" --seconds "$hb_seconds"
			done
		done
		from=$size
	done
fi

echo
echo "==== summary (mean of the rounds; ratio = Ballast ÷ peer)"
python3 bench/compare_summary.py "$results"
echo
echo "server warnings and errors (Ballast log):"
grep -E ' (WARN|ERROR) ' "$work/ballast.log" | grep -v springdoc | cut -c1-240 | sort | uniq -c | sort -rn | head -n 10 || true
if ((failed)); then
	echo "compare FAILED: a figure failed its checks (above)"
	exit 1
fi
echo "compare PASS: $(grep -c . "$results") figures, every check passed"
