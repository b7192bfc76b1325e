#!/usr/bin/env bash
# End-to-end check of proxyless gRPC on Ballast's xDS server (docs/xds.md), against the
# packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/grpc-xds/e2e.sh
#
# It builds this example's plain grpc-java programs (./mvnw -f examples/grpc-xds/pom.xml),
# then on 127.0.0.1, on free ports, starts Ballast with its ADS server on TLS (a
# self-signed certificate through a Spring Boot SSL bundle), three gRPC backend processes
# (backends a, b, c of service demo at weights 300/200/100; each process also serves one
# backend of zone za and one of zone zb of service zoned), and grpc-java client processes
# that dial xds:///demo or xds:///zoned with io.grpc:grpc-xds and a bootstrap file naming
# Ballast (TLS channel credentials; node id, zone and a reader token in the node), and
# checks that:
#
#   1. over SPLIT_CALLS RPCs the split is 50/33.3/16.7, each within TOLERANCE points;
#   2. a 10 s drain of c takes c's share monotonically to 0 in per-second windows (grpc-java
#      picks a locality at random, so a window may rise above the last by sampling noise
#      only: three standard errors, at least 1.5 points), and no RPC fails;
#   3. a client in zone za, with two of za's three backends in maintenance, sends at most
#      the cap (20%) across zones, within TOLERANCE points;
#   4. Ballast stopped and started again: the client keeps serving on its last
#      configuration (no RPC fails while Ballast is down) and follows a weight change made
#      after the restart;
#   5. a client without a token, and one whose token may read only another service, get
#      nothing (UNAUTHENTICATED, PERMISSION_DENIED).
#
# It prints one PASS line with these figures and exits non-zero when a check fails. Every
# process it starts is stopped on exit (examples/e2e-common.sh). No Envoy binary is
# installed: none is packaged where this runs (see docs/xds.md).
# Environment: BALLAST_JAR (default target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to
# wait for Ballast, default 180).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh grpc-xds

need_packages curl jq python3 openssl
need_commands java python3 curl jq openssl keytool
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-180}"
split_calls=12000
tolerance=2
window_noise=1.5
read -r ballast_port xds_port a_port b_port c_port za1_port za2_port za3_port zb1_port zb2_port zb3_port \
	<<<"$(free_ports 11)"

on_failure() {
	local log
	for log in "$work"/*.out; do
		[[ -f "$log" ]] || continue
		echo "---- last lines of $(basename "$log")"
		tail -n 15 "$log"
	done
}

step "building the example's grpc-java programs"
./mvnw -B -q -f "$here/pom.xml" -DskipTests package >"$work/build.log" 2>&1 ||
	fail "the example did not build: $(tail -n 20 "$work/build.log")"
classpath="$here/target/classes:$here/target/lib/*"

step "a self-signed certificate for the ADS server (127.0.0.1), trusted by the clients"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=ballast-xds \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$work/xds.key" -out "$work/xds.crt" 2>"$work/openssl.log" ||
	fail "openssl could not make a certificate: $(cat "$work/openssl.log")"
keytool -importcert -noprompt -alias ballast-xds -file "$work/xds.crt" -keystore "$work/trust.p12" \
	-storetype PKCS12 -storepass changeit >/dev/null 2>&1 || fail "keytool could not make the trust store"
ballast_args=(--ballast.xds.port="$xds_port" --ballast.xds.ssl-bundle=xds
	--spring.ssl.bundle.pem.xds.keystore.certificate="file:$work/xds.crt"
	--spring.ssl.bundle.pem.xds.keystore.private-key="file:$work/xds.key")

step "starting Ballast on port $ballast_port, ADS on $xds_port (jar $jar)"
start_ballast "${ballast_args[@]}"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"
grep -q "xDS (ADS) server on 127.0.0.1 port $xds_port (TLS" "$work/ballast.log" || fail "no ADS server on TLS in the log"
clients_token="$(new_token '{"name":"grpc clients","role":"reader","services":["demo","zoned"]}')"
billing_token="$(new_token '{"name":"billing","role":"reader","services":["billing"]}')"
[[ -n "$clients_token" && -n "$billing_token" ]] || fail "POST /v1/tokens gave no token"

register() { # service id port weight [zone]
	local zone=""
	[[ -z "${5:-}" ]] || zone=",\"zone\":\"$5\""
	admin_curl -fsS -m 10 -o /dev/null -X PUT "$ballast/v1/services/$1/instances/$2" -H 'Content-Type: application/json' \
		-d "{\"address\":\"127.0.0.1\",\"port\":$3,\"weight\":$4,\"leaseTtlSeconds\":300$zone}" ||
		fail "could not register $1/$2"
}

step "three backend processes; demo a, b, c at 300/200/100; zoned: three in za, three in zb"
for backend in "a $a_port za1 $za1_port zb1 $zb1_port" "b $b_port za2 $za2_port zb2 $zb2_port" \
	"c $c_port za3 $za3_port zb3 $zb3_port"; do
	read -r name port za za_port zb zb_port <<<"$backend"
	java -cp "$classpath" dev.ballast.example.grpcxds.Backend "$name=$port" "$za=$za_port" "$zb=$zb_port" \
		>"$work/backend-$name.out" 2>&1 &
	track $!
done
register demo a "$a_port" 300
register demo b "$b_port" 200
register demo c "$c_port" 100
for i in 1 2 3; do
	register zoned "za$i" "$(eval echo "\$za${i}_port")" 100 za
	register zoned "zb$i" "$(eval echo "\$zb${i}_port")" 100 zb
done
admin_curl -fsS -m 10 -o /dev/null -X PATCH "$ballast/v1/services/zoned" -H 'Content-Type: application/merge-patch+json' \
	-d '{"maxUnroutable":"100%","locality":{"mode":"PREFER_LOCAL","maxCrossZonePercent":20}}' ||
	fail "could not set zoned's locality policy"

# A bootstrap file for grpc-java, readable by this user only: it holds the token.
bootstrap() { # file node-id zone token
	local node
	node="$(jq -n --arg id "$2" --arg zone "$3" --arg token "$4" \
		'{id: $id} + (if $zone == "" then {} else {locality: {zone: $zone}} end)
		 + (if $token == "" then {} else {metadata: {ballast_token: $token}} end)')"
	(umask 077 && jq -n --arg uri "127.0.0.1:$xds_port" --argjson node "$node" \
		'{xds_servers: [{server_uri: $uri, channel_creds: [{type: "tls"}], server_features: ["xds_v3"]}], node: $node}' \
		>"$work/$1")
}
client() { # bootstrap-file mode args...
	local file="$1"
	shift
	GRPC_XDS_BOOTSTRAP="$work/$file" java -Djavax.net.ssl.trustStore="$work/trust.p12" \
		-Djavax.net.ssl.trustStorePassword=changeit -cp "$classpath" dev.ballast.example.grpcxds.Client "$@"
}
# A backend's count in a client's line; 0 when the line does not name it (no calls).
field() {
	local count
	count="$(sed -n "s/.*\b$2=\([0-9]*\).*/\1/p" <<<"$1")"
	echo "${count:-0}"
}
percent() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.1f", (d > 0 ? 100 * n / d : 0) }'; }
within() { awk -v v="$1" -v t="$2" -v tol="$3" 'BEGIN { exit !(v >= t - tol && v <= t + tol) }'; }

bootstrap demo.json demo-client "" "$clients_token"
bootstrap zone.json zone-client za "$clients_token"
bootstrap anonymous.json anonymous-client "" ""
bootstrap billing.json billing-client "" "$billing_token"

step "1. the split of $split_calls RPCs to xds:///demo"
split="$(client demo.json split xds:///demo "$split_calls" 4 2>"$work/split.out")" || fail "the split client failed"
echo "$split"
a=$(field "$split" a) b=$(field "$split" b) c=$(field "$split" c) failed=$(field "$split" failed)
total=$((a + b + c + failed))
((total == split_calls)) || fail "the split counted $total calls, not $split_calls"
((failed == 0)) || fail "$failed RPCs failed during the split"
pa=$(percent "$a" "$total") pb=$(percent "$b" "$total") pc=$(percent "$c" "$total")
within "$pa" 50 "$tolerance" && within "$pb" 33.3 "$tolerance" && within "$pc" 16.7 "$tolerance" ||
	fail "split $pa/$pb/$pc, expected 50/33.3/16.7 within $tolerance points"

step "2. a 10 s drain of c under steady RPCs"
client demo.json windows xds:///demo 18 4 >"$work/drain-windows.out" 2>"$work/drain.out" &
drain_client=$!
track "$drain_client"
wait_for 60 grep -q '^window 1 ' "$work/drain-windows.out" || fail "the drain client did not start counting"
admin_curl -fsS -m 10 -o /dev/null -X POST "$ballast/v1/services/demo/instances/c/drain" \
	-H 'Content-Type: application/json' -d '{"durationSeconds":10}' || fail "the drain of c was refused"
wait "$drain_client" || fail "the drain client failed"
cat "$work/drain-windows.out"
# c's expected share falls step by step, but grpc-java picks a locality at random, so a
# window's share is a sample: a rise counts only beyond three standard errors of the
# difference between two windows (and at least WINDOW_NOISE points).
drain_check="$(awk -v noise="$window_noise" '
	/^window / {
		a = b = c = f = 0
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "a") a = kv[2]; if (kv[1] == "b") b = kv[2];
			if (kv[1] == "c") c = kv[2]; if (kv[1] == "failed") f = kv[2] }
		total = a + b + c + f; failed += f
		if (total == 0) next
		p = c / total; share = 100 * p; shares = shares sprintf("%s%.1f", n ? " " : "", share)
		if (n) {
			allowed = 300 * sqrt(lp * (1 - lp) / ln + p * (1 - p) / total)
			if (allowed < noise) allowed = noise
			if (share > last + allowed) rises = rises sprintf(" %.1f->%.1f", last, share)
		}
		if (share > max) max = share
		last = share; lp = p; ln = total; n++
		zero = (c == 0) ? zero + 1 : 0
	}
	END { printf "%d|%s|%d|%s|%.1f\n", failed, rises, zero, shares, max }' "$work/drain-windows.out")"
IFS='|' read -r drain_failed drain_rises drain_zero drain_shares drain_max <<<"$drain_check"
((drain_failed == 0)) || fail "$drain_failed RPCs failed during the drain"
[[ -z "$drain_rises" ]] || fail "c's share rose during the drain:$drain_rises (shares: $drain_shares)"
((drain_zero >= 3)) || fail "c's share did not end at 0 for the last windows (shares: $drain_shares)"

step "3. a client in zone za with za2 and za3 in maintenance"
for id in za2 za3; do
	admin_curl -fsS -m 10 -o /dev/null -X POST "$ballast/v1/services/zoned/instances/$id/maintenance" \
		-H 'Content-Type: application/json' -d '{"reason":"e2e"}' || fail "maintenance of $id was refused"
done
zone_split="$(client zone.json split xds:///zoned 10000 4 2>"$work/zone.out")" || fail "the zone client failed"
echo "$zone_split"
across=$(($(field "$zone_split" zb1) + $(field "$zone_split" zb2) + $(field "$zone_split" zb3)))
local_calls=$(($(field "$zone_split" za1) + $(field "$zone_split" za2) + $(field "$zone_split" za3)))
((local_calls == $(field "$zone_split" za1))) || fail "za2 or za3 got calls in maintenance: $zone_split"
(($(field "$zone_split" failed) == 0)) || fail "RPCs failed in zone za: $zone_split"
cross=$(percent "$across" $((across + local_calls)))
awk -v v="$cross" -v cap=20 -v tol="$tolerance" 'BEGIN { exit !(v <= cap + tol) }' ||
	fail "zone za sent $cross% across zones, above the cap of 20% (+$tolerance)"

step "4. Ballast stopped and started again under steady RPCs"
client demo.json windows xds:///demo 150 2 >"$work/restart-windows.out" 2>"$work/restart.out" &
restart_client=$!
track "$restart_client"
wait_for 60 grep -q '^window 1 ' "$work/restart-windows.out" || fail "the restart client did not start counting"
stop_ballast
down_at="$(now)"
start_ballast "${ballast_args[@]}"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy again within ${health_timeout}s"
down_for="$(elapsed "$down_at" "$(now)")"
admin_curl -fsS -m 10 -o /dev/null -X PATCH "$ballast/v1/services/demo/instances/b" \
	-H 'Content-Type: application/merge-patch+json' -d '{"weight":300}' || fail "could not change b's weight"
changed_at="$(now)"
# b now weighs as much as a (c is drained): the client has resynchronised once a window
# splits them evenly.
resynced=""
while [[ -z "$resynced" ]] && kill -0 "$restart_client" 2>/dev/null; do
	sleep 0.5
	resynced="$(sed -n '/^window /p' "$work/restart-windows.out" | tail -n 1 | awk '{ a = b = 0
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "a") a = kv[2]; if (kv[1] == "b") b = kv[2] }
		if (a + b > 0 && b / (a + b) > 0.45) print }')"
done
[[ -n "$resynced" ]] || fail "the client did not follow a change made after the restart: $(tail -n 5 "$work/restart-windows.out")"
resync_after="$(elapsed "$changed_at" "$(now)")"
kill "$restart_client" 2>/dev/null || true
wait "$restart_client" 2>/dev/null || true
restart_failed="$(awk '/^window / { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "failed") f += kv[2] } }
	END { print f + 0 }' "$work/restart-windows.out")"
((restart_failed == 0)) || fail "$restart_failed RPCs failed across the restart"

step "5. a client without a token, and one whose token reads only billing"
anonymous="$(client anonymous.json probe xds:///demo 8 2>/dev/null)"
billing="$(client billing.json probe xds:///demo 8 2>/dev/null)"
echo "without a token: $anonymous"
echo "billing's token: $billing"
[[ "$anonymous" == refused* && "$anonymous" == *UNAUTHENTICATED* ]] || fail "a client without a token got: $anonymous"
[[ "$billing" == refused* && "$billing" == *PERMISSION_DENIED* ]] || fail "billing's token got: $billing"

echo "PASS grpc-xds: split a/b/c $pa/$pb/$pc% over $split_calls RPCs (0 failed, within $tolerance points of 50/33.3/16.7);" \
	"10 s drain of c: share $drain_max% -> 0 over windows [$drain_shares], never rising, 0 failed;" \
	"zone za with 2 of 3 in maintenance: $cross% across zones (cap 20%);" \
	"restart: Ballast down and back in ${down_for} s with 0 failed RPCs, change after it followed in ${resync_after} s;" \
	"no token: UNAUTHENTICATED, token for billing: PERMISSION_DENIED"
