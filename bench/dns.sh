#!/usr/bin/env bash
# DNS benchmark (issue 16): one node with its DNS responder on, one service of 100
# instances (bench-0), and closed-loop UDP clients asking for its SRV records (100 records
# and their address glue in every answer) for BENCH_SECONDS after BENCH_WARMUP. Prints
# queries/s, p50/p99 latency and the server's CPU seconds per 1,000 queries.
#
#   ./mvnw -DskipTests package && bench/dns.sh
#
# Knobs (environment): BENCH_INSTANCES (100), BENCH_CLIENTS (4), BENCH_SECONDS (10),
# BENCH_WARMUP (5), BALLAST_JAR.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=bench/node.sh
source bench/node.sh
INSTANCES=${BENCH_INSTANCES:-100}
CLIENTS=${BENCH_CLIENTS:-4}
SECONDS_RUN=${BENCH_SECONDS:-10}
WARMUP=${BENCH_WARMUP:-5}

work=$(mktemp -d /tmp/ballast-bench.XXXXXX)
data="$work/data"
stop_timeout=60
server_pid=""
generator_pid=""
PORT=$(free_port)
DNS_PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"

java -Xmx512m -jar "$jar" --server.port="$PORT" --server.address=127.0.0.1 --ballast.data-dir="$data" \
	--ballast.dns.port="$DNS_PORT" "${node_options[@]}" >"$work/server.log" 2>&1 &
server_pid=$!
await_up "the node" "$server_pid" "$BASE/actuator/health" '"status":"UP"' 180 "$work/server.log" || exit 1

java bench/src/ballast/bench/Populate.java --url "$BASE" --instances "$INSTANCES" --services 1 --clients 4
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
java bench/src/ballast/bench/DnsQueries.java --port "$DNS_PORT" --name _bench-0._tcp.service.ballast --expect "$INSTANCES" \
	--clients "$CLIENTS" --warmup "$WARMUP" --seconds "$SECONDS_RUN" --pids "$server_pid"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
