#!/usr/bin/env bash
# End-to-end check of Prometheus' HTTP service discovery against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/prometheus/e2e.sh
#
# On 127.0.0.1, on free ports, it starts Ballast (embedded PostgreSQL, fresh data
# directory), tiny scrape targets (target.py, each answering /metrics), and Debian's
# prometheus with http_sd_configs pointed at GET /v1/prometheus/targets and a reader
# token given through authorization.credentials_file. Then, through Prometheus' own API
# (/api/v1/targets, /api/v1/query), it checks that:
#
#   1. the endpoint refuses a call without a token (401) and lists a, b, c for a reader;
#   2. Prometheus discovers and scrapes a, b and c (health "up"), with the labels the
#      relabelling in prometheus.yml makes of __meta_ballast_*;
#   3. zero, registered at weight 0, is neither an active nor a dropped target;
#   4. an instance registered while Prometheus runs is scraped within a few refreshes;
#   5. an instance drained in Ballast disappears from Prometheus' targets.
#
# It prints one PASS line with the figures and exits non-zero when a check fails. Every
# process it starts is stopped on exit. Packages it lacks are installed with apt-get
# (Debian 12). Environment: BALLAST_JAR (default target/ballast-*.jar),
# E2E_HEALTH_TIMEOUT (seconds to wait for Ballast, default 300).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh prometheus

need_packages prometheus curl jq python3
need_commands java python3 prometheus curl jq
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-300}"
service=metrics-e2e
job=ballast-e2e
# How often Prometheus asks Ballast and scrapes: short, so that the run is short.
refresh=2
read -r ballast_port prometheus_port a_port b_port c_port zero_port late_port <<<"$(free_ports 7)"
prometheus="http://127.0.0.1:$prometheus_port"

on_failure() {
	echo "---- Prometheus' targets"
	curl -sS -m 5 "$prometheus/api/v1/targets" 2>/dev/null | jq -c '.data.activeTargets[]? | [.labels.instance, .health, .lastError]' || true
	echo "---- last lines of Prometheus' log"
	tail -n 20 "$work/prometheus.log" 2>/dev/null || true
}

step "starting Ballast on port $ballast_port (jar $jar) and the scrape targets"
start_ballast
python3 "$here/target.py" "a=$a_port" "b=$b_port" "c=$c_port" "zero=$zero_port" "late=$late_port" \
	>"$work/targets.log" 2>&1 &
track $!
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout}s"
scrapeable() { curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$zero_port/metrics"; }
wait_for 10 scrapeable || fail "the scrape targets do not answer"

step "tokens: a reader for Prometheus (in a 0600 file), a registrant for $service"
reader_token="$(new_token '{"name":"prometheus e2e","role":"reader"}')"
registrant_token="$(new_token "{\"name\":\"prometheus e2e targets\",\"role\":\"registrant\",\"services\":[\"$service\"]}")"
[[ -n "$reader_token" && -n "$registrant_token" ]] || fail "POST /v1/tokens gave no token"
(umask 077 && printf '%s' "$reader_token" >"$work/prometheus.token")
header_file reader "$reader_token"
header_file registrant "$registrant_token"

register() {
	local id="$1" port="$2" weight="$3" code
	code="$(curl -sS -m 10 -H @"$work/registrant.header" -o "$work/answer.json" -w '%{http_code}' -X PUT \
		"$ballast/v1/services/$service/instances/$id" -H 'Content-Type: application/json' \
		-d "{\"address\":\"127.0.0.1\",\"port\":$port,\"weight\":$weight,\"zone\":\"az-1\",\"metadata\":{\"version\":\"1.0.$weight\"},\"leaseTtlSeconds\":300}")"
	[[ "$code" == 201 ]] || fail "registering $id answered $code: $(cat "$work/answer.json")"
}
step "registering a (100), b (200), c (300) and zero (weight 0)"
register a "$a_port" 100
register b "$b_port" 200
register c "$c_port" 300
register zero "$zero_port" 0

step "1. the endpoint itself"
targets_url="$ballast/v1/prometheus/targets?service=$service"
code="$(curl -sS -m 10 -o "$work/answer.json" -w '%{http_code}' "$targets_url")"
[[ "$code" == 401 ]] || fail "the targets without a token answered $code"
listed="$(curl -fsS -m 10 -H @"$work/reader.header" "$targets_url" | jq -r '[.[].labels.__meta_ballast_id] | join(" ")')"
[[ "$listed" == "a b c" ]] || fail "the targets listed for a reader are \"$listed\", not \"a b c\""
echo "   no token: 401; reader: $listed"

cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: ${refresh}s
  scrape_timeout: 1s
scrape_configs:
  - job_name: $job
    http_sd_configs:
      - url: $targets_url
        refresh_interval: ${refresh}s
        authorization:
          type: Bearer
          credentials_file: $work/prometheus.token
    relabel_configs:
      - source_labels: [__meta_ballast_service]
        target_label: service
      - source_labels: [__meta_ballast_id]
        target_label: ballast_id
      - source_labels: [__meta_ballast_zone]
        target_label: zone
      - source_labels: [__meta_ballast_metadata_version]
        target_label: version
EOF
promtool check config "$work/prometheus.yml" >/dev/null 2>&1 || fail "promtool refuses the configuration: $(promtool check config "$work/prometheus.yml" 2>&1 | tail -n 3)"

step "starting Prometheus on port $prometheus_port"
prometheus_began="$(now)"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!
track "$prometheus_pid"
prometheus_ready() {
	kill -0 "$prometheus_pid" 2>/dev/null || fail "Prometheus exited: $(tail -n 3 "$work/prometheus.log")"
	curl -fsS -m 2 -o /dev/null "$prometheus/-/ready" 2>/dev/null
}
wait_for 60 prometheus_ready || fail "Prometheus not ready within 60 s"
ready_at="$(now)"

# The ids of the job's active targets whose health is $1 (any health when $1 is "any").
active() {
	curl -fsS -m 5 "$prometheus/api/v1/targets?state=any" 2>/dev/null | jq -r --arg job "$job" --arg health "$1" \
		'[.data.activeTargets[] | select(.labels.job == $job and ($health == "any" or .health == $health))
		  | .discoveredLabels.__meta_ballast_id] | sort | join(" ")'
}
dropped() {
	curl -fsS -m 5 "$prometheus/api/v1/targets?state=any" 2>/dev/null |
		jq -r '[.data.droppedTargets[]? | .discoveredLabels.__meta_ballast_id // empty] | sort | join(" ")'
}
up_are() { [[ "$(active up)" == "$1" ]]; }

step "2. Prometheus discovers and scrapes a, b and c"
wait_for 60 up_are "a b c" || fail "Prometheus' targets up are \"$(active up)\", not \"a b c\" (all: \"$(active any)\")"
discovered_at="$(now)"
discovery="$(elapsed "$ready_at" "$discovered_at")"
echo "   a, b, c up $discovery s after Prometheus was ready ($(elapsed "$prometheus_began" "$discovered_at") s after its start)"
series_are() {
	curl -fsS -m 5 "$prometheus/api/v1/query" --data-urlencode "query=e2e_target_info{job=\"$job\"}" 2>/dev/null |
		jq -r '[.data.result[].metric | "\(.target):\(.service):\(.ballast_id):\(.zone):\(.version)"] | sort | join(" ")' |
		grep -qx "$1"
}
expected_series="a:$service:a:az-1:1.0.100 b:$service:b:az-1:1.0.200 c:$service:c:az-1:1.0.300"
wait_for 20 series_are "$expected_series" || fail "the scraped series do not carry the relabelled Ballast labels"
echo "   scraped series, with their relabelled labels: $expected_series"

step "3. zero (weight 0) is not a target"
sleep "$((refresh * 2))"
[[ " $(active any) " != *" zero "* ]] || fail "zero, at weight 0, is an active target"
[[ " $(dropped) " != *" zero "* ]] || fail "zero, at weight 0, reached Prometheus (as a dropped target)"
echo "   active targets: $(active any); dropped: \"$(dropped)\""

step "4. an instance registered while Prometheus runs"
registered_at="$(now)"
register late "$late_port" 100
wait_for 60 up_are "a b c late" || fail "late did not become an active target that is up: \"$(active up)\""
late_up="$(elapsed "$registered_at" "$(now)")"
echo "   late up $late_up s after its registration"

step "5. an instance drained in Ballast"
drained_at="$(now)"
code="$(admin_curl -sS -m 10 -o "$work/answer.json" -w '%{http_code}' -X POST \
	"$ballast/v1/services/$service/instances/a/drain" -H 'Content-Type: application/json' -d '{"durationSeconds":0}')"
[[ "$code" == 202 ]] || fail "draining a answered $code: $(cat "$work/answer.json")"
gone() { [[ " $(active any) " != *" a "* ]]; }
wait_for 60 gone || fail "a, drained, is still a target: $(active any)"
drain_gone="$(elapsed "$drained_at" "$(now)")"
up_are "b c late" || fail "after a's drain the targets up are \"$(active up)\", not \"b c late\""
echo "   a gone from Prometheus' targets $drain_gone s after its drain; up: $(active up)"

echo "prometheus e2e PASS: targets_up=3/3 discovered_in=${discovery}s (sd refresh ${refresh}s, scrape ${refresh}s)" \
	"weight0_absent=yes new_instance_up_after=${late_up}s drained_gone_after=${drain_gone}s" \
	"relabelled=service,ballast_id,zone,version prometheus=$(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }')"
