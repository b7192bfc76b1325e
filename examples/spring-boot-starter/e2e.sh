#!/usr/bin/env bash
# End-to-end check of Spring Boot apps on Ballast through its starter alone (no Consul, no
# Eureka), against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/spring-boot-starter/e2e.sh
#
# It installs the starter (./mvnw -f clients/java/pom.xml install) and builds the two apps
# of this example, then on 127.0.0.1, on free ports, starts Ballast (embedded PostgreSQL,
# fresh data directory), three backends a, b, c that the starter registers with weights
# 300, 200, 100, and one caller that finds them with the starter's DiscoveryClient and calls
# them through its load balancer (smooth weighted round robin over the watch stream). It
# checks, under continuous calls from the caller where it says so:
#
#   0. a backend started without a token, and one with a wrong token, stop at start-up
#      naming ballast.client.token;
#   1. the backends are registered with their typed weights, and the caller's
#      DiscoveryClient and /actuator/ballast list them;
#   2. the split of SPLIT_CALLS calls is 50/33.3/16.7 within TOLERANCE points;
#   3. a 6 s drain of c (Ballast's drain API): c's share, second by second, falls
#      monotonically to 0, with no failed call;
#   4. a rolling restart of a, b and c by SIGTERM (each drains itself, waits until the
#      caller acknowledged its weight 0, deregisters, then stops; then starts again and
#      registers) with no failed call;
#   5. a registry restart (Ballast stopped and started on the same data): no failed call;
#      a fourth backend d started while Ballast is down starts, says so in its health, and
#      registers once Ballast is back; the caller's stream resumes;
#   6. weight changes (PATCH b 200 -> 210 -> 200 ...) reach the caller's balancer: the p99
#      from the registry's answer to the list the caller picks from is under 100 ms (last,
#      as each lowering holds guard budget for ballast.guard.capacity-window).
#
# It prints one PASS line with the figures and exits non-zero when a check fails. Every
# process it starts is stopped on exit. Packages it lacks are installed with apt-get;
# the apps' dependencies come from Maven Central through the wrapper.
# Environment: BALLAST_JAR (default target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to
# wait for Ballast and each app, default 300), SPLIT_CALLS (default 6000).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh spring-boot-starter

need_packages curl jq python3
need_commands java python3 curl jq
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-300}"
service=backend
split_calls="${SPLIT_CALLS:-6000}"
tolerance=2
drain_seconds=6
weight_changes=100
read -r ballast_port a_port b_port c_port d_port caller_port x_port <<<"$(free_ports 7)"
caller="http://127.0.0.1:$caller_port"

on_failure() {
	local log
	for log in "$work"/*.app.log; do
		[[ -f "$log" ]] || continue
		echo "---- last lines of $(basename "$log")"
		tail -n 15 "$log"
	done
}

step "installing the starter (clients/java) and building the example apps"
./mvnw -B -q -f clients/java/pom.xml -DskipTests install >"$work/build.log" 2>&1 ||
	fail "clients/java did not build: $(tail -n 20 "$work/build.log")"
./mvnw -B -q -f "$here/pom.xml" -DskipTests package >>"$work/build.log" 2>&1 ||
	fail "the example apps did not build: $(tail -n 20 "$work/build.log")"

step "starting Ballast on port $ballast_port (jar $jar)"
start_ballast
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"
registrant_token="$(new_token "{\"name\":\"backends\",\"role\":\"registrant\",\"services\":[\"$service\"]}")"
reader_token="$(new_token '{"name":"caller","role":"reader"}')"
[[ -n "$registrant_token" && -n "$reader_token" ]] || fail "POST /v1/tokens gave no token"
api="$ballast/v1/services/$service"

declare -A app_pid app_port
# Starts the app $2 as $1 on port $3 with token $4 (none when empty) and the extra
# arguments after them. The token goes through the environment, which ps does not show.
start_app() {
	local name="$1" app="$2" port="$3" token="$4"
	shift 4
	local env=()
	[[ -z "$token" ]] || env=(BALLAST_CLIENT_TOKEN="$token")
	# C1 only and a small heap: five JVMs share two cores.
	env "${env[@]}" java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -jar "$here/$app/target/$app.jar" \
		--server.port="$port" --server.address=127.0.0.1 --ballast.client.url="$ballast" "$@" \
		>>"$work/$name.app.log" 2>&1 &
	app_pid[$name]=$!
	app_port[$name]=$port
	track $!
}
start_backend() {
	local name="$1" weight="$2"
	start_app "$name" backend "${app_port_of[$name]}" "$registrant_token" --ballast.instance.id="backend-$name" \
		--ballast.instance.weight="$weight"
}
declare -A app_port_of=([a]=$a_port [b]=$b_port [c]=$c_port [d]=$d_port)
app_up() {
	kill -0 "${app_pid[$1]}" 2>/dev/null || fail "$1 exited: $(tail -n 5 "$work/$1.app.log")"
	curl -fsS -m 2 "http://127.0.0.1:${app_port[$1]}/actuator/health/liveness" >/dev/null 2>&1 ||
		curl -fsS -m 2 "http://127.0.0.1:${app_port[$1]}/actuator/health" 2>/dev/null | grep -q '"status"'
}
instances() { admin_curl -fsS -m 5 "$api/instances" 2>/dev/null; }
routable() { instances | jq -r '[.instances[] | select(.routable) | "\(.id)=\(.effectiveWeight)"] | sort | join(" ")'; }
exited() { ! kill -0 "$1" 2>/dev/null; }

step "0. start-up refused without a token, and with a wrong one"
start_app x-none backend "$x_port" "" --ballast.instance.id=backend-x
wait_for 120 exited "${app_pid[x-none]}" || fail "a backend without a token did not stop"
grep -q 'ballast.client.token' "$work/x-none.app.log" || fail "the start-up error does not name ballast.client.token"
no_token_says="$(grep -m1 -o 'ballast.client.token: is not set[^;]*' "$work/x-none.app.log")"
start_app x-wrong backend "$x_port" "blst_wrong-token" --ballast.instance.id=backend-x
wait_for 120 exited "${app_pid[x-wrong]}" || fail "a backend with a wrong token did not stop"
grep -q 'ballast.client.token: Ballast refused the token (401)' "$work/x-wrong.app.log" ||
	fail "the start-up error for a wrong token does not name ballast.client.token: $(grep -m3 -i 'ballast' "$work/x-wrong.app.log")"
echo "   no token: \"$no_token_says\"; wrong token: \"ballast.client.token: Ballast refused the token (401)\""

step "1. backends a, b, c (weights 300, 200, 100) and the caller"
started_at="$(now)"
start_backend a 300
start_backend b 200
start_backend c 100
start_app caller caller "$caller_port" "$reader_token"
registered() { [[ "$(routable)" == "backend-a=300 backend-b=200 backend-c=100" ]]; }
wait_for "$health_timeout" registered || fail "the backends are not registered with 300/200/100: $(instances | jq -c '[.instances[] | [.id, .weight, .mode]]')"
registered_in="$(elapsed "$started_at" "$(now)")"
# One instance at a time, whatever its weight: the guard's budget a rolling restart needs
# (the default "25%" admits one instance only up to the average share; docs/api.md).
admin_curl -fsS -m 10 -o /dev/null -X PATCH "$api" -H 'Content-Type: application/merge-patch+json' \
	-d '{"maxUnroutable":"1"}' || fail "setting maxUnroutable failed"
wait_for "$health_timeout" app_up caller || fail "the caller is not up"
[[ "$(instances | jq '[.instances[] | select((.weight | type) != "number" or (.metadata | has("weight")))] | length')" == 0 ]] ||
	fail "a weight is not a typed integer, or sits in the metadata"
discovered() {
	[[ "$(curl -fsS -m 10 "$caller/instances" 2>/dev/null | jq -r '[.[] | .id] | sort | join(" ")')" == "backend-a backend-b backend-c" ]]
}
wait_for 30 discovered || fail "the caller's DiscoveryClient lists $(curl -sS -m 10 "$caller/instances")"
endpoint="$(curl -fsS -m 5 "$caller/actuator/ballast")"
[[ "$(jq -r '.services.backend.applied | map("\(.id)=\(.effectiveWeight)") | join(" ")' <<<"$endpoint")" == \
	"backend-a=300 backend-b=200 backend-c=100" ]] || fail "/actuator/ballast shows $endpoint"
echo "   registered in ${registered_in} s; /actuator/ballast: revision $(jq .services.backend.revision <<<"$endpoint"), connected $(jq .services.backend.connected <<<"$endpoint")"
echo "   backend-a's health: $(curl -fsS -m 5 "http://127.0.0.1:$a_port/actuator/health/ballast" | jq -c '{status, phase: .details.registration.phase}')"

# Prints "a=<calls> b=<calls> c=<calls> d=<calls> failures=<n>" for one split answer on stdin.
counts() {
	jq -r '"a=\(.answers["backend-a"] // 0) b=\(.answers["backend-b"] // 0) c=\(.answers["backend-c"] // 0) d=\(.answers["backend-d"] // 0) failures=\(.failures)"'
}

step "2. the split of $split_calls calls follows the weights 300/200/100"
curl -fsS -m 300 "$caller/split?calls=$split_calls" -o "$work/split.json" || fail "the split request failed"
split="$(counts <"$work/split.json")"
read -r a_calls b_calls c_calls _ split_failures <<<"$(sed 's/[a-z]*=//g' <<<"$split")"
((split_failures == 0)) || fail "failed calls in the split: $split, the last: $(jq -r .lastError "$work/split.json")"
split_shares="$(awk -v a="$a_calls" -v b="$b_calls" -v c="$c_calls" 'BEGIN { n = a + b + c;
	printf "a:%.1f%% b:%.1f%% c:%.1f%%", 100 * a / n, 100 * b / n, 100 * c / n }')"
awk -v a="$a_calls" -v b="$b_calls" -v c="$c_calls" -v t="$tolerance" 'BEGIN {
	n = a + b + c; d1 = 100 * a / n - 50; d2 = 100 * b / n - 100 / 3; d3 = 100 * c / n - 100 / 6;
	exit !(d1 <= t && -d1 <= t && d2 <= t && -d2 <= t && d3 <= t && -d3 <= t) }' ||
	fail "the split $split ($split_shares) is not within $tolerance points of 50/33.3/16.7"
echo "   $split: $split_shares"

# Batches of 50 calls, back to back, each line: the time it ended and its counts.
(
	while :; do
		line="$(curl -sS -m 60 "$caller/split?calls=50" | counts)" || line="a=0 b=0 c=0 d=0 failures=50"
		echo "$(now) $line"
	done
) >"$work/drive.log" 2>/dev/null &
driver_pid=$!
track "$driver_pid"
column() { case "$1" in a) echo 2 ;; b) echo 3 ;; c) echo 4 ;; d) echo 5 ;; esac; }
failures_between() { awk -v from="$1" -v to="$2" '$1 > from && $1 <= to { split($6, kv, "="); f += kv[2] } END { print f + 0 }' "$work/drive.log"; }
calls_between() {
	awk -v from="$1" -v to="$2" '$1 > from && $1 <= to { for (i = 2; i <= 6; i++) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "$work/drive.log"
}
sleep 2

step "3. drain c over $drain_seconds s under continuous calls"
drain_began="$(now)"
code="$(admin_curl -sS -m 10 -o "$work/answer.json" -w '%{http_code}' -X POST "$api/instances/backend-c/drain" \
	-H 'Content-Type: application/json' -d "{\"durationSeconds\":$drain_seconds}")"
[[ "$code" == 202 ]] || fail "draining c answered $code: $(cat "$work/answer.json")"
mode_of() { admin_curl -fsS -m 5 "$api/instances/backend-$1" | jq -r .mode; }
drained() { [[ "$(mode_of c)" == DRAINED ]]; }
wait_for 60 drained || fail "c did not reach DRAINED"
drained_at="$(now)"
sleep 3
drain_end="$(now)"
# c's share of the calls, second by second from the drain on, until 2 s after DRAINED.
ramp="$(awk -v from="$drain_began" -v to="$drained_at" '$1 > from && $1 <= to + 2 {
	s = int($1 - from); split($2, a, "="); split($3, b, "="); split($4, c, "=");
	total[s] += a[2] + b[2] + c[2]; cs[s] += c[2]; if (s > last) last = s }
	END { for (i = 0; i <= last; i++) if (total[i] > 0) { printf "%s%.1f", sep, 100 * cs[i] / total[i]; sep = ">" } }' "$work/drive.log")"
tr '>' '\n' <<<"$ramp" | awk 'NR > 1 && $1 > prev + 0.0001 { bad = 1 } { prev = $1 } END { exit bad }' ||
	fail "c's share did not fall monotonically: [$ramp]%"
[[ "${ramp##*>}" == 0.0 ]] || fail "c's share did not reach 0: [$ramp]%"
c_after="$(awk -v from="$drained_at" '$1 > from { split($4, kv, "="); c += kv[2] } END { print c + 0 }' "$work/drive.log")"
((c_after == 0)) || fail "c still received $c_after calls after DRAINED"
drain_failures="$(failures_between "$drain_began" "$drain_end")"
((drain_failures == 0)) || fail "$drain_failures calls failed during the drain"
drain_calls="$(calls_between "$drain_began" "$drain_end")"
echo "   c DRAINED $(elapsed "$drain_began" "$drained_at") s after the drain; c's share by second: [$ramp]%; $drain_calls calls, 0 failed"
admin_curl -fsS -m 10 -o /dev/null -X POST "$api/instances/backend-c/serve" -H 'Content-Type: application/json' \
	-d '{"warmupSeconds":0}' || fail "c did not come back to serving"
wait_for 30 registered || fail "c is not back at 100: $(routable)"

step "4. rolling restart of a, b, c by SIGTERM under continuous calls"
restart_began="$(now)"
restarts=""
for spec in "a 300" "b 200" "c 100"; do
	read -r name weight <<<"$spec"
	term_at="$(now)"
	kill -TERM "${app_pid[$name]}"
	wait_for 60 exited "${app_pid[$name]}" || fail "$name did not exit within 60 s of SIGTERM"
	exited_after="$(elapsed "$term_at" "$(now)")"
	grep -q "drained backend-$name in" "$work/$name.app.log" ||
		fail "$name did not wait for its drain: $(grep -m3 -i 'drain' "$work/$name.app.log")"
	start_backend "$name" "$weight"
	wait_for "$health_timeout" registered || fail "$name did not come back: $(routable)"
	restarts+="$name:${exited_after}s "
done
sleep 2
restart_end="$(now)"
restart_failures="$(failures_between "$restart_began" "$restart_end")"
restart_calls="$(calls_between "$restart_began" "$restart_end")"
((restart_failures == 0)) || fail "$restart_failures of $restart_calls calls failed during the rolling restart: $(awk -v from="$restart_began" '$1 > from && $6 != "failures=0"' "$work/drive.log" | head -n 3)"
echo "   SIGTERM to exit: ${restarts}(drain confirmed each time); $restart_calls calls in $(elapsed "$restart_began" "$restart_end") s, 0 failed"

step "5. registry restart under continuous calls; backend d starts while Ballast is down"
registry_began="$(now)"
stop_pid "$ballast_pid" 45
ballast_pid=""
stop_postgres "$work/data"
start_backend d 100
d_unknown() { curl -fsS -m 2 "http://127.0.0.1:$d_port/actuator/health/ballast" 2>/dev/null | jq -e '.status == "UNKNOWN" and .details.registration.phase == "REGISTERING"' >/dev/null; }
wait_for "$health_timeout" d_unknown || fail "d's health does not say it waits for Ballast: $(curl -sS -m 2 "http://127.0.0.1:$d_port/actuator/health/ballast")"
d_health_down="$(curl -fsS -m 2 "http://127.0.0.1:$d_port/actuator/health/ballast" | jq -c '{status, phase: .details.registration.phase}')"
start_ballast
wait_for "$health_timeout" ballast_up || fail "Ballast did not come back within ${health_timeout}s"
back_at="$(now)"
all_four() { [[ "$(routable)" == "backend-a=300 backend-b=200 backend-c=100 backend-d=100" ]]; }
wait_for 60 all_four || fail "not all four backends are routable after the registry restart: $(routable)"
d_registered_after="$(elapsed "$back_at" "$(now)")"
d_up() { curl -fsS -m 2 "http://127.0.0.1:$d_port/actuator/health/ballast" 2>/dev/null | jq -e '.status == "UP"' >/dev/null; }
wait_for 30 d_up || fail "d's health did not turn UP"
caller_sees_d() { curl -fsS -m 5 "$caller/actuator/ballast" | jq -e '.services.backend.applied | map(.id) | index("backend-d")' >/dev/null; }
wait_for 30 caller_sees_d || fail "the caller's stream did not resume: $(curl -sS -m 5 "$caller/actuator/ballast")"
sleep 2
registry_end="$(now)"
stop_pid "$driver_pid" 70
registry_failures="$(failures_between "$registry_began" "$registry_end")"
registry_calls="$(calls_between "$registry_began" "$registry_end")"
((registry_failures == 0)) || fail "$registry_failures of $registry_calls calls failed across the registry restart"
echo "   Ballast down for $(elapsed "$registry_began" "$back_at") s; d meanwhile: $d_health_down, registered ${d_registered_after} s after Ballast was back; $registry_calls calls, 0 failed"

step "6. $weight_changes weight changes of b reach the caller's balancer"
weight_p99="$(python3 - "$ballast" "$work/admin.header" "$caller" "$weight_changes" <<'EOF'
import json, sys, time, urllib.request
ballast, header_file, caller, changes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
name, value = open(header_file).read().strip().split(": ", 1)
delays = []
for i in range(changes):
    weight = 210 if i % 2 == 0 else 200
    request = urllib.request.Request(ballast + "/v1/services/backend/instances/backend-b", method="PATCH",
                                     data=json.dumps({"weight": weight}).encode(),
                                     headers={name: value, "Content-Type": "application/merge-patch+json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        revision = json.load(answer)["revision"]
        answered = time.time()
    with urllib.request.urlopen(f"{caller}/applied?revision={revision}", timeout=10) as applied:
        applied_at = int(applied.read()) / 1e6
    delays.append(max(0.0, applied_at - answered) * 1000)
delays.sort()
p50, p99, worst = delays[len(delays) // 2], delays[min(len(delays) - 1, int(len(delays) * 0.99))], delays[-1]
print(f"{p50:.1f} {p99:.1f} {worst:.1f}")
EOF
)" || fail "measuring the weight changes failed"
read -r weight_p50 weight_p99 weight_max <<<"$weight_p99"
awk -v p="$weight_p99" 'BEGIN { exit !(p < 100) }' || fail "a weight change reached the caller in ${weight_p99} ms at p99 (bound 100 ms)"
echo "   from the registry's answer to the caller's list: p50 ${weight_p50} ms, p99 ${weight_p99} ms, max ${weight_max} ms"

read -r driven driven_failures <<<"$(awk '{ for (i = 2; i <= 6; i++) { split($i, kv, "="); if (kv[1] == "failures") f += kv[2]; else n += kv[2] } }
	END { print n + f, f + 0 }' "$work/drive.log")"
((driven_failures == 0)) || fail "$driven_failures of $driven calls failed"

echo "spring-boot-starter e2e PASS: split=$split_shares ($split_calls calls, weights 300/200/100, tolerance ±${tolerance} points)" \
	"weight_change_to_caller p50=${weight_p50}ms p99=${weight_p99}ms max=${weight_max}ms ($weight_changes changes)" \
	"drain_c=[${ramp}]% failures=$drain_failures/$drain_calls" \
	"rolling_restart=[${restarts% }] failures=$restart_failures/$restart_calls" \
	"registry_restart failures=$registry_failures/$registry_calls d_registered_after=${d_registered_after}s" \
	"calls=$driven failures=$driven_failures spring-boot=4.0.7 spring-cloud=2025.1.4"
