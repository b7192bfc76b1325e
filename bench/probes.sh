#!/usr/bin/env bash
# Probe benchmark (issue 30): one node runs 10,000 HTTP checks at a 10 s interval (2 s
# timeout) against local targets (70% healthy, 10% answering after 500 ms, 10% hanging,
# 10% refusing), alternating with the same instances registered without checks, and
# prints per phase: the node's idle CPU (JVM + PostgreSQL), probes/s, the latency of
# heartbeats paced at 1,000/s, heartbeats/s and registrations/s under 16 clients, and in
# the checks phase the probe lateness p99/max. Then the adversarial phase C (issue 40): a
# tenth of the checks, in ten services of their own, turned to a trickling TLS server and
# a listener that never accepts, every second; the other checks' lateness p99 (read at
# their targets) must stay below 1 s and a canary must turn critical within two of its
# 1 s intervals. The run fails when phase C misses either.
#
#   ./mvnw -DskipTests package && bench/probes.sh
#
# Knobs (environment): BENCH_INSTANCES (10000), BENCH_ROUNDS (2), BENCH_ADVERSARIAL_SECONDS
# (30; 0 skips phase C), BENCH_PORT (18095), BALLAST_JAR.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=bench/node.sh
source bench/node.sh
PORT=${BENCH_PORT:-18095}
work=$(mktemp -d /tmp/ballast-bench.XXXXXX)
data="$work/data"
stop_timeout=60
server_pid=""
generator_pid=""

BASE="http://127.0.0.1:$PORT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
java -Xmx1g -jar "$jar" --server.port="$PORT" --server.address=127.0.0.1 --ballast.data-dir="$data" \
  "${node_options[@]}" >"$work/server.log" 2>&1 &
server_pid=$!
await_up "the node" "$server_pid" "$BASE/actuator/health" '"status":"UP"' 120 "$work/server.log" || exit 1

java bench/src/ballast/bench/ProbeLoad.java --url "$BASE" --pid "$server_pid" --instances "${BENCH_INSTANCES:-10000}" \
  --rounds "${BENCH_ROUNDS:-2}" --adversarial-seconds "${BENCH_ADVERSARIAL_SECONDS:-30}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
