#!/usr/bin/env bash
# Two Ballast builds side by side, with etcd, for durable registrations (issue 13, item 3):
# starts both jars (each with its own embedded PostgreSQL) and etcd on loopback, then runs
# `Compare registrations` (8 clients, 10 s, no warm-up of its own) against A, B and etcd in
# turn, round after round, so that all three share each stretch of the machine's load: the
# first rounds are the JITs' warm-up, the later ones the figures. For the two Ballast nodes
# it also prints the CPU per write by thread kind (request threads, the committer, JIT, GC,
# PostgreSQL with all its processes; bench/cpu_split.py), over the run, the read-back of the
# 400 instances included.
#
#   bench/ab.sh OLD.jar NEW.jar [ROUNDS]      # ROUNDS defaults to 6, ~45 s each
#
# BENCH_A_OPTIONS / BENCH_B_OPTIONS add options to one node's command line (split on
# spaces), to compare two settings of one jar: e.g. BENCH_A_OPTIONS=--ballast.writes.company-wait=0.
#
# With BENCH_LOAD=heartbeats, heartbeats instead (issue 13, item 2), without etcd: each node
# gets BENCH_INSTANCES (20000) instances in 100 services, one unmeasured 15 s warm-up, then
# in each round 15 s of heartbeats per node (wrk, 32 connections, bench/heartbeat.lua), with
# the rate, p50/p99 and the CPU per heartbeat by thread kind.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { sed -n '2,10p' "$0"; exit 2; }
old="$1" new="$2" rounds="${3:-6}"
load="${BENCH_LOAD:-registrations}"
[[ "$load" == registrations || "$load" == heartbeats ]] || { echo "BENCH_LOAD is registrations or heartbeats" >&2; exit 2; }
stop_timeout=45
data=""
work="$(mktemp -d /tmp/ballast-ab.XXXXXX)"
BALLAST_JAR="$old"
# shellcheck source=bench/node.sh
source bench/node.sh
pids=()
stop_all() {
	local pid
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do
		timeout "$stop_timeout" tail --pid="$pid" -f /dev/null 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap stop_all EXIT

javac -d "$work/classes" bench/src/ballast/bench/*.java
port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
declare -A url jvm pg
for node in A B; do
	jar="$old"; [[ "$node" == B ]] && jar="$new"
	p="$(port)"
	url[$node]="http://127.0.0.1:$p"
	extra="BENCH_${node}_OPTIONS"
	# shellcheck disable=SC2086 # options split on spaces, as written
	java -Xmx1g -jar "$jar" --server.port="$p" --server.address=127.0.0.1 --ballast.data-dir="$work/$node" \
		"${node_options[@]}" ${!extra:-} >"$work/$node.log" 2>&1 &
	pids+=($!)
	jvm[$node]=$!
done
if [[ "$load" == registrations ]]; then
etcd_port="$(port)" peer_port="$(port)"
etcd_url="http://127.0.0.1:$etcd_port"
etcd --name bench --data-dir "$work/etcd" --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
	--listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
	--initial-cluster "bench=http://127.0.0.1:$peer_port" --log-level warn >"$work/etcd.log" 2>&1 &
pids+=($!)
etcd_pid=$!
fi
for node in A B; do
	await_up "node $node" "${jvm[$node]}" "${url[$node]}/actuator/health" '"status":"UP"' 600 "$work/$node.log" || exit 1
	pg[$node]="$(head -n1 "$work/$node/postgres/postmaster.pid")"
done
# CPU by thread kind over one measured stretch of load against a node: before, the load
# (a command that prints a line with ops=N), after.
measured() { # node command...
	local node="$1" result count
	shift
	python3 bench/cpu_split.py snapshot "${jvm[$node]}" "${pg[$node]}" >"$work/before.json"
	result="$("$@")"
	python3 bench/cpu_split.py snapshot "${jvm[$node]}" "${pg[$node]}" >"$work/after.json"
	echo "$result"
	count="$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' <<<"$result")"
	echo "  $node $(python3 bench/cpu_split.py per-write "$work/before.json" "$work/after.json" "$count")"
}
if [[ "$load" == heartbeats ]]; then
	command -v wrk >/dev/null || { echo "wrk is needed (Debian package wrk)" >&2; exit 1; }
	export BENCH_INSTANCES="${BENCH_INSTANCES:-20000}" BENCH_SERVICES=100
	for node in A B; do
		java bench/src/ballast/bench/Populate.java --url "${url[$node]}" --instances "$BENCH_INSTANCES" --services 100 --clients 16
	done
	heartbeats() { # node seconds
		wrk -t2 -c32 -d"$2s" --timeout 5s -s bench/heartbeat.lua "${url[$1]}" | awk -v node="$1" '
			/^heartbeats:/ {ops = $2; rate = $0}
			/^latency:/ {p50 = $3; p99 = $9}
			END {printf "%s: %s, p50 %s ms, p99 %s ms, ops=%d\n", node, rate, p50, p99, ops}'
	}
	echo "A: $old; B: $new; $BENCH_INSTANCES instances each; $(nproc) CPUs"
	for node in A B; do echo "warm-up $(heartbeats "$node" 15)"; done
	for round in $(seq "$rounds"); do
		echo "round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
		for node in A B; do measured "$node" heartbeats "$node" 15; done
	done
	exit 0
fi
registrations() { # node
	java -cp "$work/classes" ballast.bench.Compare registrations --target ballast --url "${url[$1]}" \
		--pids "${jvm[$1]},${pg[$1]}" --warmup 0 --seconds 10 | grep '^RESULT' | sed "s/target=ballast/target=$1/"
}
await_up etcd "$etcd_pid" "$etcd_url/health" '"health":"true"' 600 "$work/etcd.log" || exit 1
echo "A: $old; B: $new; etcd: $(etcd --version | head -n1); $(nproc) CPUs"
for round in $(seq "$rounds"); do
	echo "round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	for node in A B; do
		measured "$node" registrations "$node"
	done
	java -cp "$work/classes" ballast.bench.Compare registrations --target etcd --url "$etcd_url" --pids "$etcd_pid" \
		--warmup 0 --seconds 10 | grep '^RESULT'
done
