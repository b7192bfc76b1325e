#!/usr/bin/env bash
# Heartbeat benchmark (issue 3): registers 100,000 instances, drives heartbeats at them
# on loopback for 30 s with wrk, and prints heartbeats/s, latency percentiles and the
# server's heap after the load. The server runs with -Xmx512m, so finishing at all shows
# that 100k instances fit in 512 MB of heap, then the failed lease flushes and outage
# extensions (both must be 0).
#
#   ./mvnw -DskipTests package && bench/heartbeats.sh
#
# A JVM compiles its hot paths during the first seconds of load, so 20 s of heartbeats
# (BENCH_WARMUP) run unmeasured first; set BENCH_WARMUP=0 to measure a cold path.
#
# Knobs (environment): BENCH_INSTANCES (100000), BENCH_SERVICES (100), BENCH_SECONDS (30),
# BENCH_CONNECTIONS (32), BENCH_THREADS (2), BALLAST_JAR, BENCH_PORT (18090).
set -euo pipefail
cd "$(dirname "$0")/.."

# The JDK, the jar, the admin token and node options, and stopping the node, cleanup on
# exit: shared with the other benchmarks.
# shellcheck source=bench/node.sh
source bench/node.sh
export BENCH_INSTANCES=${BENCH_INSTANCES:-100000}
export BENCH_SERVICES=${BENCH_SERVICES:-100}
SECONDS_RUN=${BENCH_SECONDS:-30}
WARMUP=${BENCH_WARMUP:-20}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
PORT=${BENCH_PORT:-18090}
command -v wrk >/dev/null || need_packages wrk

# What node.sh's cleanup stops and removes on exit.
work=$(mktemp -d /tmp/ballast-bench.XXXXXX)
data="$work/data"
stop_timeout=60
server_pid=""
generator_pid=""

BASE="http://127.0.0.1:$PORT"
java -Xmx512m -jar "$jar" --server.port="$PORT" --server.address=127.0.0.1 --ballast.data-dir="$data" \
  "${node_options[@]}" >"$work/server.log" 2>&1 &
server_pid=$!
await_up "the node" "$server_pid" "$BASE/actuator/health" '"status":"UP"' 120 "$work/server.log" || exit 1

java bench/src/ballast/bench/Populate.java --url "$BASE" --instances "$BENCH_INSTANCES" --services "$BENCH_SERVICES" --clients 16

heap() {
  jcmd "$server_pid" GC.run >/dev/null
  sleep 1
  bench_curl -sf "$BASE/actuator/prometheus" | awk '/^jvm_memory_used_bytes\{.*area="heap"/ {sum += $NF} END {printf "%.1f MB", sum / 1048576}'
}
echo "heap after registration (after a full GC): $(heap)"

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up (${WARMUP} s, not measured): $(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 5s \
    -s bench/heartbeat.lua "$BASE" | grep '^heartbeats:')"
fi
echo "measured: ${SECONDS_RUN} s, $CONNECTIONS connections, $THREADS wrk threads"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_RUN}s" --timeout 5s -s bench/heartbeat.lua "$BASE" | tail -n 3

echo "heap after the heartbeat load (after a full GC): $(heap)"
bench_curl -sf "$BASE/v1/services" | python3 -c '
import json, sys
services = json.load(sys.stdin)
print("registered instances: %d, routable: %d" % (sum(s["instances"] for s in services), sum(s["routable"] for s in services)))'
# The lease writes' health under this load: a failed flush or an outage extension while
# PostgreSQL was up is a bug (issue 13), whatever the rate.
bench_curl -sf "$BASE/actuator/prometheus" | awk '
  /^ballast_lease_flush_failures_total/ {failures = $NF}
  /^ballast_lease_extensions_total/ {extensions = $NF}
  END {printf "lease flush failures: %d, outage extensions: %d\n", failures, extensions}'
