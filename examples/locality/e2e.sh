#!/usr/bin/env bash
# End-to-end check of zone views (docs/locality.md) against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/locality/e2e.sh
#
# On 127.0.0.1 only, on free ports, it starts Ballast with its DNS responder on and six
# upstreams of service "demo", three in zone za (a1 a2 a3) and three in zone zb (b1 b2
# b3), at weight 100 each and heartbeating (examples/nginx-lua's upstream.py), under a
# locality policy with a cross-zone cap of 20%. Two balancers, each in its zone, take
# steady traffic (examples/nginx-lua's traffic.py):
#
#   - nginx in zone za: examples/nginx-lua's nginx.conf and Lua sync with BALLAST_ZONE=za,
#     so it polls ?zone=za;
#   - HAProxy in zone zb: examples/haproxy's haproxy.cfg, its SRV name rewritten to zone
#     zb's view, _demo._tcp.zb.service.ballast.
#
# and checks:
#
#   1. both zones whole: each balancer sends everything to its own zone;
#   2. a2 then a3 drained (the second with force: the guard admits one at a time in a zone
#      of three): zone za's traffic that crosses to zb settles at the cap, within 2 points,
#      zone zb's stays local (no request to za), and no request fails;
#   3. the policy turned off, the same two balancers show the flat spill for comparison:
#      zone za sends 75% to zb, zone zb 25% to a1.
#
# It prints the cross-zone shares second by second and one PASS line with the figures, and
# exits non-zero when a check fails. Every process it starts is stopped on exit
# (examples/e2e-common.sh); missing Debian packages are installed with apt-get.
# Environment: BALLAST_JAR (default target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to
# wait for Ballast, default 180).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh locality

need_packages nginx libnginx-mod-http-lua libnginx-mod-http-ndk lua-cjson lua-resty-core lua-resty-lrucache \
	haproxy curl jq python3 procps
need_commands java python3 nginx haproxy curl jq
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-180}"
nginx_example="$here/../nginx-lua"
haproxy_example="$here/../haproxy"
# nginx's workers run as nobody when started by root: they must reach lua/ under it.
chmod 755 "$work"
tracked_grace=5
service=demo
cap=20
tolerance=2

read -r ballast_port dns_port a1_port a2_port a3_port b1_port b2_port b3_port nginx_port haproxy_port \
	<<<"$(free_ports 10)"
ballast="http://127.0.0.1:$ballast_port"
api="$ballast/v1/services/$service"
stats_socket="$work/haproxy.sock"

on_failure() {
	echo "---- last lines of nginx's error log"
	tail -n 30 "$work/nginx/logs/error.log" 2>/dev/null || true
	echo "---- HAProxy's log"
	tail -n 30 "$work/haproxy.log" 2>/dev/null || true
	echo "---- zone views"
	for zone in za zb; do
		admin_curl -sS -m 2 "$api/instances?zone=$zone" | jq -c '[.instances[] | {id, effectiveWeight}]' || true
	done
}

traffic() { python3 "$nginx_example/traffic.py" "$@"; }
# The share of the traffic in LOG over [FROM, TO) that went to NAMES (comma-separated).
share_of() { traffic share "$1" "$2" "$3" "$4" --overall; }
# The same, second by second, joined with '>'.
shares_of() { traffic share "$1" "$2" "$3" "$4" | tr ' ' '>'; }
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
field_of() { admin_curl -fsS -m 2 "$api/instances/$1" | jq -r ".$2"; }
view_of() { admin_curl -fsS -m 2 "$api/instances?zone=$1" | jq -r '[.instances[] | "\(.id)=\(.effectiveWeight)"] | join(" ")'; }

step "starting Ballast on $ballast, DNS on 127.0.0.1:$dns_port (jar $jar)"
start_ballast --ballast.dns.port="$dns_port"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"
registrant_token="$(new_token "{\"name\":\"locality e2e upstreams\",\"role\":\"registrant\",\"services\":[\"$service\"]}")"
reader_token="$(new_token '{"name":"nginx-za","role":"reader"}')"
[[ -n "$registrant_token" && -n "$reader_token" ]] || fail "POST /v1/tokens gave no token"

step "six upstreams at weight 100: a1 a2 a3 in zone za, b1 b2 b3 in zone zb (each registers itself, heartbeats every 3 s)"
for spec in "a1 $a1_port za" "a2 $a2_port za" "a3 $a3_port za" "b1 $b1_port zb" "b2 $b2_port zb" "b3 $b3_port zb"; do
	read -r name port zone <<<"$spec"
	BALLAST_TOKEN="$registrant_token" python3 "$nginx_example/upstream.py" --name "$name" --port "$port" \
		--ballast "$ballast" --service "$service" --weight 100 --zone "$zone" --heartbeat 3 \
		>>"$work/upstreams.log" 2>&1 &
	track $!
done
registered() { [[ "$(admin_curl -fsS -m 2 "$api/instances" 2>/dev/null | jq '[.instances[] | select(.routable)] | length')" == 6 ]]; }
wait_for 30 registered || fail "the upstreams did not register"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X PATCH "$api" \
	-H 'Content-Type: application/merge-patch+json' \
	-d "{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":$cap}}")"
[[ "$code" == 200 ]] || fail "setting the locality policy answered $code: $(cat "$work/answer.json")"
echo "   policy: $(jq -c .locality "$work/answer.json")"

nginx_url="http://127.0.0.1:$nginx_port"
step "nginx in zone za on $nginx_url (examples/nginx-lua, BALLAST_ZONE=za)"
prefix="$work/nginx"
mkdir -p "$prefix/logs" "$prefix/temp"
cp -r "$nginx_example/lua" "$prefix/lua"
sed "s/^\(\s*\)listen 8000;/\1listen 127.0.0.1:$nginx_port;/" "$nginx_example/nginx.conf" >"$prefix/nginx.conf"
grep -q "listen 127.0.0.1:$nginx_port;" "$prefix/nginx.conf" || fail "nginx.conf has no 'listen 8000;' to rewrite"
BALLAST_URLS="$ballast" BALLAST_SERVICES="$service" BALLAST_SUBSCRIBER=nginx-za BALLAST_ZONE=za \
	BALLAST_TOKEN="$reader_token" nginx -p "$prefix/" -c "$prefix/nginx.conf" -g 'daemon off;' \
	>>"$prefix/logs/stderr.log" 2>&1 &
nginx_pid=$!
track "$nginx_pid"
nginx_peers() { curl -fsS -m 2 "$nginx_url/_ballast" 2>/dev/null | jq -r "[.services.$service.peers[]? | .id] | sort | join(\" \")"; }
nginx_local() {
	kill -0 "$nginx_pid" 2>/dev/null || fail "nginx exited: $(tail -n 2 "$prefix/logs/stderr.log")"
	[[ "$(nginx_peers)" == "a1 a2 a3" ]]
}
wait_for 20 nginx_local || fail "nginx in zone za does not route to a1 a2 a3 only: [$(nginx_peers)]"

haproxy_url="http://127.0.0.1:$haproxy_port"
srv_name="_$service._tcp.zb.service.ballast"
step "HAProxy in zone zb on $haproxy_url (examples/haproxy, resolving $srv_name)"
sed "s/ _$service\._tcp\.service\.ballast / $srv_name /" "$haproxy_example/haproxy.cfg" >"$work/haproxy.cfg"
grep -q " $srv_name " "$work/haproxy.cfg" || fail "haproxy.cfg has no _$service._tcp.service.ballast to rewrite"
BALLAST_DNS="127.0.0.1:$dns_port" LISTEN="127.0.0.1:$haproxy_port" STATS_SOCKET="$stats_socket" \
	haproxy -db -f "$work/haproxy.cfg" >>"$work/haproxy.log" 2>&1 &
haproxy_pid=$!
track "$haproxy_pid"
# "port:weight" of each of HAProxy's servers that holds an address (show servers state:
# srv_addr is field 5, srv_uweight 8, srv_port 19), by port.
haproxy_weights() {
	python3 - "$stats_socket" "show servers state $service" <<'PY' |
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
		awk '$1 !~ /^#/ && NF > 10 && $5 != "-" && $5 != "0.0.0.0" { print $19 ":" $8 }' | sort -n | paste -sd' '
}
expected_weights="$(printf '%s\n' "$a1_port:0" "$a2_port:0" "$a3_port:0" "$b1_port:255" "$b2_port:255" "$b3_port:255" |
	sort -n | paste -sd' ')"
haproxy_local() {
	kill -0 "$haproxy_pid" 2>/dev/null || fail "HAProxy exited: $(tail -n 5 "$work/haproxy.log")"
	[[ -S "$stats_socket" && "$(haproxy_weights 2>/dev/null)" == "$expected_weights" ]]
}
wait_for 30 haproxy_local || fail "HAProxy in zone zb does not weigh a1-a3 at 0 and b1-b3 at 255: [$(haproxy_weights)]"
echo "   HAProxy's servers (port:weight): $(haproxy_weights)"

# Started directly, not through the traffic function: a TERM to a subshell would not
# reach the python3 inside it.
python3 "$nginx_example/traffic.py" run "$nginx_url/" "$work/za.log" --rate 150 --max-seconds 300 &
track $!
python3 "$nginx_example/traffic.py" run "$haproxy_url/" "$work/zb.log" --rate 150 --max-seconds 300 &
track $!
sleep 1
started="$(now)"

step "1. both zones whole: each balancer keeps its traffic in its zone"
began="$(now)"
sleep 5
whole_za="$(share_of "$work/za.log" "$began" "$(now)" b1,b2,b3)"
whole_zb="$(share_of "$work/zb.log" "$began" "$(now)" a1,a2,a3)"
echo "   across zones: from za $whole_za%, from zb $whole_zb%"
[[ "$whole_za" == 0.0 && "$whole_zb" == 0.0 ]] || fail "with both zones whole, traffic crossed zones: za $whole_za%, zb $whole_zb%"

step "2. a2 and a3 drained over 3 s each (a3 with force: one at a time is admitted in a zone of three)"
drain_began="$(now)"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/a2/drain" -H 'Content-Type: application/json' \
	-d '{"durationSeconds":3}')"
[[ "$(tail -n1 <<<"$answer")" == 202 ]] || fail "draining a2 answered $answer"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X POST "$api/instances/a3/drain" \
	-H 'Content-Type: application/json' -d '{"durationSeconds":3}')"
[[ "$code" == 409 ]] || fail "draining a3 beside a2 without force answered $code: $(cat "$work/answer.json")"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/a3/drain" -H 'Content-Type: application/json' \
	-d '{"durationSeconds":3,"force":true}')"
[[ "$(tail -n1 <<<"$answer")" == 202 ]] || fail "draining a3 with force answered $answer"
both_at_zero() { [[ "$(field_of a2 effectiveWeight)" == 0 && "$(field_of a3 effectiveWeight)" == 0 ]]; }
wait_for 30 both_at_zero || fail "a2 and a3 did not reach effective weight 0"
zero_at="$(now)"
echo "   zone za's view: $(view_of za)"
echo "   zone zb's view: $(view_of zb)"
# nginx applies a change within its poll; HAProxy within its 1 s hold plus Ballast's 1 s TTL.
sleep 3
settled_at="$(now)"
sleep 8
capped_until="$(now)"
capped_za="$(share_of "$work/za.log" "$settled_at" "$capped_until" b1,b2,b3)"
capped_zb="$(share_of "$work/zb.log" "$drain_began" "$capped_until" a1,a2,a3)"
ramp_za="$(shares_of "$work/za.log" "$drain_began" "$capped_until" b1,b2,b3)"
ramp_zb="$(shares_of "$work/zb.log" "$drain_began" "$capped_until" a1,a2,a3)"
echo "   zone za's traffic across to zb, second by second from the first drain: $ramp_za"
echo "   zone zb's traffic across to za, second by second: $ramp_zb"
echo "   settled: za across $capped_za% (cap $cap%), zb across $capped_zb%"
within "$capped_za" $((cap - tolerance)) $((cap + tolerance)) ||
	fail "zone za sent $capped_za% across zones with two of three drained; the cap is $cap% (±$tolerance)"
[[ "$capped_zb" == 0.0 ]] || fail "zone zb, whole, sent $capped_zb% of its traffic to zone za"
capped_split="$(traffic split "$work/za.log" "$settled_at" "$capped_until" --expect a1=8000,b1=667,b2=667,b3=666 \
	--tolerance "$tolerance")" || fail "zone za's split is not its view 8000/667/667/666: $capped_split"
echo "   zone za's split: ${capped_split#*split=} (view a1=8000 b1=667 b2=667 b3=666)"
for log in za zb; do
	failed="$(traffic split "$work/$log.log" "$started" "$capped_until" --expect a1=1,a2=1,a3=1,b1=1,b2=1,b3=1 --tolerance 100)" ||
		fail "requests failed in zone $log while every upstream could serve them: $failed"
done

step "3. the policy off, for comparison: the flat view's spill"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X PATCH "$api" \
	-H 'Content-Type: application/merge-patch+json' -d '{"locality":null}')"
[[ "$code" == 200 ]] || fail "turning the policy off answered $code: $(cat "$work/answer.json")"
off_at="$(now)"
sleep 3
flat_from="$(now)"
sleep 6
flat_until="$(now)"
flat_za="$(share_of "$work/za.log" "$flat_from" "$flat_until" b1,b2,b3)"
flat_zb="$(share_of "$work/zb.log" "$flat_from" "$flat_until" a1,a2,a3)"
flat_ramp_za="$(shares_of "$work/za.log" "$off_at" "$flat_until" b1,b2,b3)"
flat_ramp_zb="$(shares_of "$work/zb.log" "$off_at" "$flat_until" a1,a2,a3)"
echo "   zone za's traffic across, second by second from the policy's removal: $flat_ramp_za"
echo "   zone zb's traffic across: $flat_ramp_zb"
echo "   flat: za across $flat_za% (a1 has 100 of the 400 routable), zb across $flat_zb%"
within "$flat_za" $((75 - tolerance)) $((75 + tolerance)) || fail "without the policy zone za sent $flat_za% across, not 75%"
within "$flat_zb" $((25 - tolerance)) $((25 + tolerance)) || fail "without the policy zone zb sent $flat_zb% across, not 25%"

totals_za="$(traffic split "$work/za.log" "$started" "$flat_until" --expect a1=1,a2=1,a3=1,b1=1,b2=1,b3=1 --tolerance 100)" ||
	fail "failed requests in zone za: $totals_za"
totals_zb="$(traffic split "$work/zb.log" "$started" "$flat_until" --expect a1=1,a2=1,a3=1,b1=1,b2=1,b3=1 --tolerance 100)" ||
	fail "failed requests in zone zb: $totals_zb"
[[ "$totals_za" =~ requests=([0-9]+)\ failures=([0-9]+) ]]
requests_za="${BASH_REMATCH[1]}" failures_za="${BASH_REMATCH[2]}"
[[ "$totals_zb" =~ requests=([0-9]+)\ failures=([0-9]+) ]]
requests_zb="${BASH_REMATCH[1]}" failures_zb="${BASH_REMATCH[2]}"
echo "locality e2e PASS: cap=$cap% za_cross=${capped_za}% (nginx, zone za, two of three drained; ${cap}±${tolerance})" \
	"zb_cross=${capped_zb}% (HAProxy on _demo._tcp.zb.service.ballast)" \
	"za_cross_by_second=[$ramp_za] flat_za_cross=${flat_za}% flat_zb_cross=${flat_zb}% (policy off)" \
	"requests=za:$requests_za/zb:$requests_zb failures=$((failures_za + failures_zb))" \
	"drained_in=$(elapsed "$drain_began" "$zero_at")s"
