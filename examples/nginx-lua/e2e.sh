#!/usr/bin/env bash
# End-to-end check of examples/nginx-lua against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/nginx-lua/e2e.sh
#
# On 127.0.0.1 only, on free ports, it starts Ballast (embedded PostgreSQL, fresh data
# directory), three upstreams registered with weights 300/200/100 and heartbeating, and
# nginx with this example, drives about 300 requests a second through nginx and checks:
#
#   0. against a fake registry that serves string, fractional, negative, NaN, null...
#      weights, nginx rejects and logs each bad record once, serves the good one, keeps
#      its last good set when every record is bad, and its workers stay idle; the fake
#      answers 401 unless nginx sends its BALLAST_TOKEN as a bearer token; a token with
#      a space or CR/LF stops the sync at its configuration check, and a token the
#      registry refuses is logged as such;
#   T. Ballast started with a bootstrap admin token made for this run (the script's own
#      calls use it): a write without a token answers 401, with a reader token 403; the
#      upstreams register with a registrant token for "demo", nginx reads with a reader
#      token;
#   1. the traffic split follows the weights;
#   2. draining an instance over 5 s under traffic: no failed request, its share falls
#      step by step to 0, and it turns DRAINED on the acknowledgement of nginx's poller;
#   3. serving it again warms it up step by step;
#   4. "weight": "0" is refused with 422 under STRICT, stored and served as the integer 0
#      under NORMALIZE, and nginx keeps serving with idle workers;
#   5. Ballast killed: nginx keeps serving the last good set; Ballast restarted on the
#      same data: a weight change shows up in the split;
#   6. every instance force-drained: nginx answers 503 at once, workers stay idle.
#
# It prints one summary line and exits non-zero when a check fails. Every process it
# starts is stopped on exit (examples/e2e-common.sh). Packages it needs and lacks are
# installed with apt-get (Debian 12). Environment: BALLAST_JAR (default target/ballast-*.jar),
# E2E_HEALTH_TIMEOUT (seconds to wait for Ballast, default 120).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh nginx-lua

need_packages nginx libnginx-mod-http-lua libnginx-mod-http-ndk lua-cjson lua-resty-core lua-resty-lrucache \
	curl jq procps
need_commands java python3 nginx curl jq pgrep
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-120}"
hz="$(getconf CLK_TCK)"
# nginx's workers run as nobody when started by root: they must reach lua/ under it.
chmod 755 "$work"
tracked_grace=5
service=demo
subscriber=nginx-e2e

on_failure() {
	echo "---- last lines of nginx's error log"
	tail -n 30 "$work/nginx/logs/error.log" 2>/dev/null || true
}

read -r ballast_port fake_port zero_port fake_nginx_port bad_token_port refused_port a_port b_port c_port nginx_port \
	<<<"$(free_ports 10)"
ballast="http://127.0.0.1:$ballast_port"
api="$ballast/v1/services/$service"

# The nginx of the example, in a prefix of its own with a copy of lua/, listening on $2,
# sending $5 as its bearer token.
start_nginx() {
	local prefix="$1" port="$2" urls="$3" name="$4" token="$5"
	mkdir -p "$prefix/logs" "$prefix/temp"
	cp -r "$here/lua" "$prefix/lua"
	sed "s/^\(\s*\)listen 8000;/\1listen 127.0.0.1:$port;/" "$here/nginx.conf" >"$prefix/nginx.conf"
	grep -q "listen 127.0.0.1:$port;" "$prefix/nginx.conf" || fail "nginx.conf has no 'listen 8000;' to rewrite"
	BALLAST_URLS="$urls" BALLAST_SERVICES="$service" BALLAST_SUBSCRIBER="$name" BALLAST_TOKEN="$token" \
		nginx -p "$prefix/" -c "$prefix/nginx.conf" -g 'daemon off;' >>"$prefix/logs/stderr.log" 2>&1 &
	started_pid=$!
	track "$started_pid"
	listening() {
		kill -0 "$started_pid" 2>/dev/null || fail "nginx exited: $(tail -n 2 "$prefix/logs/stderr.log")"
		curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$port/_ballast" 2>/dev/null
	}
	wait_for 10 listening || fail "nginx on port $port does not answer"
}

# utime + stime of each worker of the nginx whose master is $1, as "pid:ticks ...".
worker_ticks() {
	local pid
	for pid in $(pgrep -P "$1"); do
		printf '%s:%s ' "$pid" "$(awk '{ print $14 + $15 }' "/proc/$pid/stat")"
	done
}
# The busiest worker's CPU since worker_ticks printed $2 at time $3, in % of one core.
worker_cpu() {
	local master="$1" before="$2" since="$3"
	awk -v before="$before" -v after="$(worker_ticks "$master")" -v seconds="$(elapsed "$since" "$(now)")" -v hz="$hz" '
		BEGIN {
			n = split(before, b, " "); for (i = 1; i <= n; i++) { split(b[i], kv, ":"); start[kv[1]] = kv[2] }
			n = split(after, a, " "); for (i = 1; i <= n; i++) {
				split(a[i], kv, ":"); used = kv[2] - start[kv[1]]
				if (kv[1] in start && used > most) most = used
			}
			printf "%.1f", 100 * most / hz / seconds
		}'
}
cpu_peak=0
# Fails when a worker used more than 25% of a core: a spinning balancer takes a whole one.
check_cpu() {
	local label="$1" cpu="$2"
	echo "   busiest nginx worker during $label: $cpu% of a core"
	cpu_peak="$(awk -v a="$cpu_peak" -v b="$cpu" 'BEGIN { print (b > a ? b : a) }')"
	awk -v cpu="$cpu" 'BEGIN { exit !(cpu < 25) }' || fail "an nginx worker used $cpu% of a core during $label"
}

traffic() { python3 "$here/traffic.py" "$@"; }

step "starting Ballast on $ballast (jar $jar)"
start_ballast

# Step 0 runs while Ballast starts: a fake registry and a second nginx need no Ballast.
step "0. a registry serving bad weights (fake, on its own nginx)"
python3 "$here/upstream.py" --name zero --port "$zero_port" &
track $!
fake_token="fake-reader-$(random_token)"
python3 - "$fake_port" "$zero_port" "$work/fake-all-bad" "$fake_token" <<'EOF' >"$work/fake.log" 2>&1 &
import json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, upstream, all_bad, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
good = {"id": "good", "address": "127.0.0.1", "port": upstream, "weight": 100, "effectiveWeight": 100,
        "routable": True, "mode": "SERVING", "health": "PASSING"}
bad = [dict(good, id=id, **fields) for id, fields in [
    ("string-weight", {"weight": "0"}), ("string-effective", {"effectiveWeight": "0"}),
    ("fraction", {"effectiveWeight": 1.5}), ("negative", {"effectiveWeight": -1}),
    ("too-heavy", {"effectiveWeight": 10001}), ("infinite", {"effectiveWeight": float("inf")}),
    ("nan", {"effectiveWeight": float("nan")}), ("null", {"effectiveWeight": None}),
    ("boolean", {"effectiveWeight": True}), ("list", {"effectiveWeight": []}),
    ("hostname", {"address": "localhost"}), ("string-port", {"port": "8080"}),
    ("string-routable", {"routable": "true"})]]
drained = dict(good, id="drained", effectiveWeight=0, routable=False, mode="DRAINED")

class Registry(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def refuse(self):
        body = json.dumps({"type": "https://ballast.dev/problems/unauthenticated", "status": 401,
                           "detail": "the bearer token is unknown, deleted or expired"}).encode()
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer realm="ballast", error="invalid_token"')
        self.send_header("Content-Type", "application/problem+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    # Answers at once whatever the index and wait: the poller must not spin on it.
    def do_GET(self):
        if self.headers.get("Authorization") != "Bearer " + token:
            return self.refuse()
        revision, instances = (8, bad) if os.path.exists(all_bad) else (7, [good, drained] + bad)
        body = json.dumps({"service": "demo", "revision": revision, "instances": instances}).encode()
        self.send_response(200)
        self.send_header("X-Ballast-Index", str(revision))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

ThreadingHTTPServer(("127.0.0.1", port), Registry).serve_forever()
EOF
track $!
start_nginx "$work/nginx-fake" "$fake_nginx_port" "http://127.0.0.1:$fake_port" nginx-e2e-fake "$fake_token"
fake_nginx_pid="$started_pid"
fake_status() { curl -fsS -m 2 "http://127.0.0.1:$fake_nginx_port/_ballast" 2>/dev/null | jq -r ".services.$service.$1 // empty"; }
fake_synced() { [[ "$(fake_status revision)" == 7 ]]; }
wait_for 15 fake_synced || fail "nginx never applied the fake registry's revision 7"
ticks="$(worker_ticks "$fake_nginx_pid")"
began="$(now)"
traffic run "http://127.0.0.1:$fake_nginx_port/" "$work/fake-traffic.log" --rate 200 --max-seconds 3
traffic split "$work/fake-traffic.log" "$began" "$(now)" --expect zero=1 --tolerance 0 >/dev/null ||
	fail "with one good record, nginx did not send everything to it"
rejected="$(grep -c 'ballast: demo revision 7: rejected' "$work/nginx-fake/logs/error.log" || true)"
((rejected == 13)) || fail "expected each of the 13 bad records rejected and logged once, found $rejected log lines"
check_cpu "the fake registry's bad records" "$(worker_cpu "$fake_nginx_pid" "$ticks" "$began")"
touch "$work/fake-all-bad"
all_bad_refused() { [[ "$(fake_status failures)" -ge 2 && "$(fake_status lastError)" == *"every instance was rejected"* ]]; }
wait_for 10 all_bad_refused || fail "nginx did not refuse an answer in which every record is bad"
[[ "$(fake_status revision)" == 7 ]] || fail "nginx gave up its last good set for an answer with only bad records"
began="$(now)"
traffic run "http://127.0.0.1:$fake_nginx_port/" "$work/fake-traffic.log" --rate 200 --max-seconds 1
traffic split "$work/fake-traffic.log" "$began" "$(now)" --expect zero=1 --tolerance 0 >/dev/null ||
	fail "with only bad records on offer, nginx stopped serving its last good set"
echo "   13 bad records rejected and logged once each; an all-bad answer kept revision 7 in use"
stop_pid "$fake_nginx_pid" 5

# A token that would split the request: the sync refuses its configuration and never calls.
start_nginx "$work/nginx-bad-token" "$bad_token_port" "http://127.0.0.1:$fake_port" nginx-e2e-bad $'bad token\r\nX-Injected: 1'
bad_token_pid="$started_pid"
config_refused() { grep -q 'ballast: not syncing: BALLAST_TOKEN must be 1 to 4096 printable ASCII characters' \
	"$work/nginx-bad-token/logs/error.log"; }
wait_for 5 config_refused || fail "nginx did not refuse a BALLAST_TOKEN with a space, CR and LF"
grep -q 'X-Injected' "$work/nginx-bad-token/logs/error.log" && fail "nginx logged the refused token"
stop_pid "$bad_token_pid" 5
# A token the registry does not know: the sync says the registry refused it.
start_nginx "$work/nginx-refused" "$refused_port" "http://127.0.0.1:$fake_port" nginx-e2e-refused "not-$fake_token"
refused_pid="$started_pid"
refusal_logged() { grep -q '\[error\].*ballast: demo: registry refused the token: 401 the bearer token is unknown' \
	"$work/nginx-refused/logs/error.log"; }
wait_for 10 refusal_logged || fail "nginx did not log the registry's 401 as a refused token"
refusal="$(grep -o 'registry refused the token: 401[^;]*' "$work/nginx-refused/logs/error.log" | head -n1)"
stop_pid "$refused_pid" 5
echo "   the fake registry answers 401 without nginx's token; a token with CR/LF: config refused;" \
	"an unknown one: \"$refusal\""

step "waiting for Ballast"
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"

step "T. tokens: writes without a token or with a reader token refused; tokens for the upstreams and nginx"
reader_token="$(new_token "{\"name\":\"$subscriber\",\"role\":\"reader\"}")"
registrant_token="$(new_token "{\"name\":\"e2e upstreams\",\"role\":\"registrant\",\"services\":[\"$service\"]}")"
[[ -n "$reader_token" && -n "$registrant_token" ]] || fail "POST /v1/tokens with the bootstrap admin token gave no token"
header_file reader "$reader_token"
intruder='{"address":"127.0.0.1","port":9,"weight":100}'
code="$(curl -sS -m 5 -D "$work/headers.txt" -o "$work/answer.json" -w '%{http_code}' -X PUT "$api/instances/intruder" \
	-H 'Content-Type: application/json' -d "$intruder")"
{ [[ "$code" == 401 ]] && grep -qi '^WWW-Authenticate: *Bearer' "$work/headers.txt"; } ||
	fail "a registration without a token answered $code: $(cat "$work/answer.json")"
anonymous_write="$code"
code="$(curl -sS -m 5 -H @"$work/reader.header" -o "$work/answer.json" -w '%{http_code}' -X PUT "$api/instances/intruder" \
	-H 'Content-Type: application/json' -d "$intruder")"
[[ "$code" == 403 ]] || fail "a registration with a reader token answered $code: $(cat "$work/answer.json")"
reader_write="$code"
echo "   PUT without a token: 401; with a reader token: 403, $(jq -r .detail "$work/answer.json")"

step "upstreams a, b, c with weights 300, 200, 100 (each registers itself, heartbeats every 3 s)"
for spec in "a $a_port 300" "b $b_port 200" "c $c_port 100"; do
	read -r name port weight <<<"$spec"
	BALLAST_TOKEN="$registrant_token" python3 "$here/upstream.py" --name "$name" --port "$port" --ballast "$ballast" \
		--service "$service" --weight "$weight" --heartbeat 3 >>"$work/upstreams.log" 2>&1 &
	track $!
done
registered() { [[ "$(admin_curl -fsS -m 2 "$api/instances" 2>/dev/null | jq '[.instances[] | select(.routable)] | length')" == 3 ]]; }
wait_for 20 registered || fail "the upstreams did not register"

nginx_url="http://127.0.0.1:$nginx_port"
step "nginx on $nginx_url, subscriber $subscriber"
start_nginx "$work/nginx" "$nginx_port" "$ballast" "$subscriber" "$reader_token"
nginx_pid="$started_pid"
status() { curl -fsS -m 2 "$nginx_url/_ballast" 2>/dev/null | jq -r ".services.$service.$1 // empty"; }
applied_at_least() { local revision; revision="$(status revision)"; [[ -n "$revision" ]] && ((revision >= $1)); }
nginx_routes() { [[ "$(status routablePeers)" == "$1" ]]; }
wait_for 15 nginx_routes 3 || fail "nginx did not sync the three upstreams"

# Started directly, not through the traffic function: a TERM to a subshell would not
# reach the python3 inside it.
python3 "$here/traffic.py" run "$nginx_url/" "$work/traffic.log" --rate 300 --max-seconds 400 &
track $!
sleep 1
started="$(now)"

step "1. the split follows the weights"
ticks="$(worker_ticks "$nginx_pid")"
began="$(now)"
sleep 6
split_line="$(traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2)" ||
	fail "the split does not follow the weights 300/200/100"
echo "   $split_line"
check_cpu "steady traffic" "$(worker_cpu "$nginx_pid" "$ticks" "$began")"

step "2. drain c over 5 s"
admin_curl -sN -m 120 "$api/watch" >"$work/events.sse" 2>/dev/null &
watch_pid=$!
track "$watch_pid"
sleep 0.5
drain_began="$(now)"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/c/drain" -H 'Content-Type: application/json' \
	-d '{"durationSeconds":5}')"
[[ "$(tail -n1 <<<"$answer")" == 202 && "$(head -n1 <<<"$answer" | jq -r .mode)" == DRAINING ]] ||
	fail "drain answered $answer"
mode_is() { [[ "$(admin_curl -fsS -m 2 "$api/instances/$1" | jq -r .mode)" == "$2" ]]; }
wait_for 30 mode_is c DRAINED || fail "c did not become DRAINED"
drained_at="$(now)"
ramp_down="$(sed -n 's/^data://p' "$work/events.sse" | jq -r 'select(.id == "c") | "\(.effectiveWeight)/\(.mode)"' | paste -sd' ')"
zero_revision="$(sed -n 's/^data://p' "$work/events.sse" |
	jq -s '[.[] | select(.id == "c" and .mode == "DRAINING" and .effectiveWeight == 0)][0].revision')"
echo "   c's effectiveWeight/mode as Ballast streamed them: $ramp_down"
[[ "$zero_revision" =~ ^[0-9]+$ ]] || fail "no DRAINING event with effectiveWeight 0 for c"
drained="$(admin_curl -fsS -m 2 "$api/instances/c")"
[[ "$(jq 'has("unconfirmedSubscribers")' <<<"$drained")" == false ]] ||
	fail "c was declared DRAINED without every subscriber's confirmation: $drained"
acked="$(admin_curl -fsS -m 2 "$api/subscribers" | jq --arg name "$subscriber" '.subscribers[] | select(.name == $name) | .ackedRevision')"
if ! [[ "$acked" =~ ^[0-9]+$ ]] || ((acked < zero_revision)); then
	fail "subscriber $subscriber acknowledged ${acked:-nothing}, not the revision $zero_revision where c's weight became 0"
fi
echo "   weight 0 at revision $zero_revision; DRAINED after $(elapsed "$drain_began" "$drained_at") s," \
	"confirmed by $subscriber (acked $acked), no unconfirmedSubscribers"
drain_shares="$(traffic share "$work/traffic.log" "$drain_began" "$drained_at" c --falling)" ||
	fail "c's share did not fall step by step: $drain_shares"
echo "   c's share, second by second: $drain_shares"
sleep 2
traffic split "$work/traffic.log" "$drained_at" "$(now)" --expect a=300,b=200 --tolerance 2 >/dev/null ||
	fail "c still received traffic once DRAINED (or a/b drifted)"

step "3. serve c again, warming up over 5 s"
serve_began="$(now)"
answer="$(admin_curl -sS -m 5 -w '\n%{http_code}' -X POST "$api/instances/c/serve" -H 'Content-Type: application/json' \
	-d '{"warmupSeconds":5}')"
[[ "$(tail -n1 <<<"$answer")" == 202 && "$(head -n1 <<<"$answer" | jq -r .mode)" == WARMING ]] ||
	fail "serve answered $answer"
wait_for 30 mode_is c SERVING || fail "c did not come back to SERVING"
serving_at="$(now)"
stop_pid "$watch_pid" 2
ramp_up="$(sed -n 's/^data://p' "$work/events.sse" | jq -r 'select(.id == "c" and (.mode == "WARMING" or .mode == "SERVING")) | "\(.effectiveWeight)/\(.mode)"' | paste -sd' ')"
echo "   c's effectiveWeight/mode as Ballast streamed them: $ramp_up"
warm_shares="$(traffic share "$work/traffic.log" "$serve_began" "$serving_at" c --rising)" ||
	fail "c's share did not rise step by step: $warm_shares"
echo "   c's share, second by second: $warm_shares"
sleep 1
began="$(now)"
sleep 4
traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2.5 >/dev/null ||
	fail "the split did not return to 300/200/100 after the warm-up"

step "4. a weight sent as the string \"0\""
ticks="$(worker_ticks "$nginx_pid")"
began="$(now)"
zero_body="{\"address\":\"127.0.0.1\",\"port\":$zero_port,\"weight\":\"0\"}"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X PUT "$api/instances/zero" \
	-H 'Content-Type: application/json' -d "$zero_body")"
[[ "$code" == 422 && "$(jq -r '.errors[0].pointer' "$work/answer.json")" == /weight ]] ||
	fail "STRICT answered $code to a string weight: $(cat "$work/answer.json")"
echo "   STRICT: 422, $(jq -r '.errors[0].detail' "$work/answer.json")"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X PATCH "$api" \
	-H 'Content-Type: application/merge-patch+json' -d '{"weightPolicy":"NORMALIZE"}')"
[[ "$code" == 200 && "$(jq -r .weightPolicy "$work/answer.json")" == NORMALIZE ]] ||
	fail "setting NORMALIZE answered $code: $(cat "$work/answer.json")"
code="$(admin_curl -sS -m 5 -D "$work/headers.txt" -o "$work/answer.json" -w '%{http_code}' -X PUT "$api/instances/zero" \
	-H 'Content-Type: application/json' -d "$zero_body")"
[[ "$code" == 201 ]] || fail "NORMALIZE answered $code: $(cat "$work/answer.json")"
grep -qi '^Ballast-Normalized: */weight' "$work/headers.txt" || fail "no Ballast-Normalized: /weight header"
zero_revision="$(jq .revision "$work/answer.json")"
served="$(admin_curl -fsS -m 2 "$api/instances" | jq -c '.instances[] | select(.id == "zero") | [.weight, (.weight | type), .effectiveWeight, (.effectiveWeight | type)]')"
[[ "$served" == '[0,"number",0,"number"]' ]] || fail "zero is served as $served, not the integers 0"
wait_for 10 applied_at_least "$zero_revision" || fail "nginx did not apply revision $zero_revision"
echo "   NORMALIZE: 201, Ballast-Normalized: /weight, served as weight 0 (a JSON number); nginx at revision $(status revision)"
sleep 4
traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=200,c=100 --tolerance 2.5 >/dev/null ||
	fail "traffic suffered (or reached zero) after the string weight"
check_cpu "the string weight" "$(worker_cpu "$nginx_pid" "$ticks" "$began")"

step "5. Ballast killed, then restarted on the same data"
revision_before="$(status revision)"
kill -KILL "$ballast_pid"
wait "$ballast_pid" 2>/dev/null || true
down_at="$(now)"
sleep 4
[[ "$(status revision)" == "$revision_before" && "$(status failures)" -ge 1 ]] ||
	fail "nginx's sync did not notice the outage, or lost its set: $(curl -sS -m 2 "$nginx_url/_ballast")"
echo "   nginx keeps revision $revision_before; its sync says: $(status lastError)"
start_ballast
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy again within ${health_timeout}s"
up_at="$(now)"
outage_line="$(traffic split "$work/traffic.log" "$down_at" "$up_at" --expect a=300,b=200,c=100 --tolerance 2.5)" ||
	fail "traffic suffered while Ballast was down"
echo "   down for $(elapsed "$down_at" "$up_at") s: $outage_line"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X PATCH "$api/instances/b" \
	-H 'Content-Type: application/merge-patch+json' -d '{"weight":400}')"
[[ "$code" == 200 ]] || fail "the weight PATCH answered $code: $(cat "$work/answer.json")"
patched_at="$(now)"
wait_for 30 applied_at_least "$(jq .revision "$work/answer.json")" || fail "nginx did not resume its sync"
resync="$(elapsed "$patched_at" "$(now)")"
echo "   b's weight 200 -> 400 applied by nginx $resync s after the PATCH"
sleep 1
began="$(now)"
sleep 4
split_after="$(traffic split "$work/traffic.log" "$began" "$(now)" --expect a=300,b=400,c=100 --tolerance 2.5)" ||
	fail "the split does not follow 300/400/100 after the restart"
echo "   $split_after"

step "6. every instance drained at once"
drains='{"instances":["a","b","c"],"durationSeconds":0}'
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X POST "$api/drains" \
	-H 'Content-Type: application/json' -d "$drains")"
[[ "$code" == 409 ]] || fail "draining everything without force answered $code"
echo "   without force: 409, $(jq -r .detail "$work/answer.json")"
served_until="$(now)"
ticks="$(worker_ticks "$nginx_pid")"
code="$(admin_curl -sS -m 5 -o "$work/answer.json" -w '%{http_code}' -X POST "$api/drains" \
	-H 'Content-Type: application/json' -d '{"instances":["a","b","c"],"durationSeconds":0,"force":true}')"
[[ "$code" == 202 ]] || fail "draining everything with force answered $code: $(cat "$work/answer.json")"
forced_at="$(now)"
sleep 4
first_503="$(traffic first "$work/traffic.log" "$forced_at" 503)" || fail "nginx never answered 503"
awk -v s="$first_503" 'BEGIN { exit !(s < 2) }' || fail "nginx took $first_503 s to answer 503"
unavailable="$(traffic split "$work/traffic.log" "$(awk -v a="$forced_at" -v s="$first_503" 'BEGIN { printf "%.3f", a + s + 0.5 }')" \
	"$(now)" --allow 503)" || fail "nginx answered something else than 503 with every instance drained"
slowest="$(jq -s "[.[] | select(.t > $forced_at) | .max_ms] | max" "$work/traffic.log")"
echo "   503 within $first_503 s of the drain, then only 503 ($unavailable, slowest answer $slowest ms)"
check_cpu "the all-drained 503s" "$(worker_cpu "$nginx_pid" "$ticks" "$forced_at")"

totals="$(traffic split "$work/traffic.log" "$started" "$served_until" --expect a=1,b=1,c=1 --tolerance 100)" ||
	fail "failed requests before the final drain: $totals"
[[ "$totals" =~ requests=([0-9]+)\ failures=([0-9]+) ]]
echo "nginx-lua e2e PASS: requests=${BASH_REMATCH[1]} failures=${BASH_REMATCH[2]}" \
	"split=${split_line#*split=} (300/200/100)" \
	"drain_c=[${drain_shares// />}]% warmup_c=[${warm_shares// />}]%" \
	"outage=$(elapsed "$down_at" "$up_at")s resync=${resync}s split_after=${split_after#*split=} (300/400/100)" \
	"all_drained_503_after=${first_503}s worker_cpu_max=${cpu_peak}% bad_records_rejected=13" \
	"write_without_token=$anonymous_write write_with_reader_token=$reader_write"
