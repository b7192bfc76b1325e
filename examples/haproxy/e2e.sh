#!/usr/bin/env bash
# End-to-end check of examples/haproxy against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/haproxy/e2e.sh
#
# On 127.0.0.1 only, on free ports, it starts Ballast with its DNS responder on, three
# upstreams registered with weights 300/200/100 and heartbeating (examples/nginx-lua's
# upstream.py), and Debian's HAProxy with haproxy.cfg (resolvers + server-template on
# Ballast's SRV records), drives about 300 requests a second through HAProxy
# (examples/nginx-lua's traffic.py) and checks:
#
#   1. HAProxy's weights are 255/170/85 (SRV 65280/43520/21760) and the split follows
#      300/200/100;
#   2. draining c over 10 s: its share falls step by step to 0 while HAProxy keeps its
#      slot (SRV weight 0, not removed), with no failed request;
#   3. serving c again (5 s warm-up) brings its share back;
#   4. Ballast stopped and started again on the same ports and data: HAProxy keeps its
#      last answer, no request fails, and the split is 300/200/100 afterwards.
#
# It prints one summary line and exits non-zero when a check fails. Every process it
# starts is stopped on exit; missing Debian packages are installed with apt-get.
# Environment: BALLAST_JAR (default target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds
# to wait for Ballast, default 180).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
source examples/e2e-common.sh haproxy

need_packages haproxy curl jq python3 dnsutils
find_jar
health_timeout="${E2E_HEALTH_TIMEOUT:-180}"
nginx_example="$here/../nginx-lua"
service=demo

read -r ballast_port dns_port a_port b_port c_port haproxy_port <<<"$(free_ports 6)"
api="http://127.0.0.1:$ballast_port/v1/services/$service"
haproxy_url="http://127.0.0.1:$haproxy_port"
stats_socket="$work/haproxy.sock"

on_failure() {
	echo "---- HAProxy's log"
	tail -n 30 "$work/haproxy.log" 2>/dev/null || true
	echo "---- HAProxy's servers"
	haproxy_cmd "show servers state $service" 2>/dev/null || true
}

# A command on HAProxy's runtime API (its stats socket), every wait bounded.
haproxy_cmd() {
	python3 - "$stats_socket" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
out = b""
while chunk := s.recv(65536):
    out += chunk
sys.stdout.write(out.decode())
PY
}
# "port:weight" of each of HAProxy's servers that holds an address, heaviest first
# (show servers state: srv_addr is field 5, srv_uweight 8, srv_port 19).
haproxy_weights() {
	haproxy_cmd "show servers state $service" |
		awk '$1 !~ /^#/ && NF > 10 && $5 != "-" && $5 != "0.0.0.0" { print $19 ":" $8 }' | sort -t: -k2,2nr | paste -sd' '
}
srv_answer() { dig +short +time=2 +tries=1 -p "$dns_port" @127.0.0.1 "_$service._tcp.service.ballast." SRV; }
traffic() { python3 "$nginx_example/traffic.py" "$@"; }
field_of() { admin_curl -fsS -m 2 "$api/instances/$1" | jq -r ".$2"; }

step "starting Ballast on port $ballast_port, DNS on $dns_port (jar $jar)"
start_ballast --ballast.dns.port="$dns_port"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"
registrant_token="$(new_token "{\"name\":\"haproxy e2e upstreams\",\"role\":\"registrant\",\"services\":[\"$service\"]}")"
[[ -n "$registrant_token" ]] || fail "no registrant token"

step "upstreams a, b, c with weights 300, 200, 100 (each registers itself, heartbeats every 3 s)"
for spec in "a $a_port 300" "b $b_port 200" "c $c_port 100"; do
	read -r name port weight <<<"$spec"
	BALLAST_TOKEN="$registrant_token" python3 "$nginx_example/upstream.py" --name "$name" --port "$port" \
		--ballast "http://127.0.0.1:$ballast_port" --service "$service" --weight "$weight" --heartbeat 3 \
		>>"$work/upstreams.log" 2>&1 &
	track $!
done
three_records() { [[ "$(srv_answer | wc -l)" == 3 ]]; }
wait_for 30 three_records || fail "Ballast's DNS does not answer three SRV records: $(srv_answer)"
srv_weights="$(srv_answer | awk '{ print $2 }' | sort -rn | paste -sd/)"
[[ "$srv_weights" == 65280/43520/21760 ]] || fail "SRV weights are $srv_weights, not 65280/43520/21760"
echo "   SRV answer: $(srv_answer | paste -sd';')"

step "HAProxy on $haproxy_url, resolving _$service._tcp.service.ballast at 127.0.0.1:$dns_port"
BALLAST_DNS="127.0.0.1:$dns_port" LISTEN="127.0.0.1:$haproxy_port" STATS_SOCKET="$stats_socket" \
	haproxy -db -f "$here/haproxy.cfg" >>"$work/haproxy.log" 2>&1 &
haproxy_pid=$!
track "$haproxy_pid"
expected_weights="$a_port:255 $b_port:170 $c_port:85"
haproxy_resolved() {
	kill -0 "$haproxy_pid" 2>/dev/null || fail "HAProxy exited: $(tail -n 5 "$work/haproxy.log")"
	[[ -S "$stats_socket" && "$(haproxy_weights 2>/dev/null)" == "$expected_weights" ]]
}
wait_for 20 haproxy_resolved || fail "HAProxy's servers are [$(haproxy_weights)], not [$expected_weights]"
echo "   HAProxy's servers (port:weight): $(haproxy_weights)"

python3 "$nginx_example/traffic.py" run "$haproxy_url/" "$work/traffic.log" --rate 300 --max-seconds 600 &
track $!
sleep 1
started="$(now)"

step "1. the split follows the weights"
began="$(now)"
sleep 6
split_line="$(traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2)" ||
	fail "the split does not follow the weights 300/200/100: $split_line"
echo "   $split_line"

step "2. drain c over 10 s"
drain_began="$(now)"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/c/drain" -H 'Content-Type: application/json' \
	-d '{"durationSeconds":10}')"
[[ "$(tail -n1 <<<"$answer")" == 202 ]] || fail "drain answered $answer"
at_zero() { [[ "$(field_of c effectiveWeight)" == 0 ]]; }
wait_for 40 at_zero || fail "c's effective weight did not reach 0"
zero_at="$(now)"
kept_at_zero() { srv_answer | grep -q "^1 0 $c_port "; }
wait_for 5 kept_at_zero || fail "c's SRV record is not kept at weight 0: $(srv_answer | paste -sd';')"
# HAProxy reads the new weight within its 1 s hold plus Ballast's 1 s refresh.
sleep 3
drained_weights="$(haproxy_weights)"
[[ "$drained_weights" == "$a_port:255 $b_port:170 $c_port:0" ]] ||
	fail "with c drained HAProxy's servers are [$drained_weights], not weight 0 in c's slot"
drain_shares="$(traffic share "$work/traffic.log" "$drain_began" "$(now)" c --falling)" ||
	fail "c's share did not fall step by step: $drain_shares"
echo "   c's share, second by second: $drain_shares; HAProxy's servers now: $drained_weights"
began="$(now)"
sleep 3
traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200 --tolerance 2 >/dev/null ||
	fail "c still received traffic at weight 0 (or a/b drifted)"

step "3. serve c again, warming up over 5 s"
serve_began="$(now)"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/c/serve" -H 'Content-Type: application/json' \
	-d '{"warmupSeconds":5}')"
[[ "$(tail -n1 <<<"$answer")" == 202 ]] || fail "serve answered $answer"
serving() { [[ "$(field_of c mode)" == SERVING ]]; }
wait_for 30 serving || fail "c did not come back to SERVING"
sleep 3
serve_shares="$(traffic share "$work/traffic.log" "$serve_began" "$(now)" c --rising)" ||
	fail "c's share did not rise step by step: $serve_shares"
echo "   c's share, second by second: $serve_shares"
began="$(now)"
sleep 4
traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2.5 >/dev/null ||
	fail "the split did not return to 300/200/100 after serve"

step "4. Ballast stopped and started again on the same ports and data"
stop_began="$(now)"
stop_ballast
down_at="$(now)"
start_ballast --ballast.dns.port="$dns_port"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy again within ${health_timeout}s"
wait_for 30 three_records || fail "Ballast's DNS does not answer after the restart"
up_at="$(now)"
began="$(now)"
sleep 4
split_after="$(traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2.5)" ||
	fail "the split after the restart: $split_after"
outage="$(traffic split "$work/traffic.log" "$stop_began" "$up_at" --expect a=1,b=1,c=1 --tolerance 100)" ||
	fail "requests failed while Ballast restarted: $outage"
echo "   down for $(elapsed "$stop_began" "$up_at") s: $outage; after: $split_after"

totals="$(traffic split "$work/traffic.log" "$started" "$(now)" --expect a=1,b=1,c=1 --tolerance 100)" ||
	fail "failed requests: $totals"
[[ "$totals" =~ requests=([0-9]+)\ failures=([0-9]+) ]]
echo "haproxy e2e PASS: requests=${BASH_REMATCH[1]} failures=${BASH_REMATCH[2]}" \
	"split=${split_line#*split=} (300/200/100) haproxy_weights=255/170/85 srv_weights=$srv_weights" \
	"drain_c=[${drain_shares// />}]% serve_c=[${serve_shares// />}]%" \
	"restart=$(elapsed "$stop_began" "$up_at")s split_after=${split_after#*split=}"
