#!/usr/bin/env bash
# End-to-end check of Ballast's Consul-compatible API with the npm `consul` client
# (2.0.x, pinned by package-lock.json), against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/consul-npm/e2e.sh
#
# On 127.0.0.1 only, on a free port, it starts Ballast (embedded PostgreSQL, fresh data
# directory, a bootstrap admin token made for this run), makes a registrant token for
# npm-* and a reader token, and runs watch.js: three instances registered with TTL checks,
# tags and Meta.weight, their checks passed every 3 s, queries filtered by one and by
# several tags, the catalog's tag list, a watch on a tag seeing a re-tagged instance join,
# the service watched with blocking queries, a weight edit and a drain made through Ballast's own API and seen by the
# watch, a failing check held by the ejection cap (the drain counts against it), then
# ejected once the cap is raised and passing again, maintenance refused by the guard.
#
# It prints one summary line and exits non-zero when a check fails. Every process it
# starts is stopped on exit (examples/e2e-common.sh). Node.js and npm are installed with apt-get when missing
# (Debian 12); the client comes from `npm ci`. Environment: BALLAST_JAR (default
# target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to wait for Ballast, default 120).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
	export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
	export PATH="$JAVA_HOME/bin:$PATH"
fi

# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh consul-npm

need_packages curl jq python3
# Node.js may come from elsewhere than Debian (as on our machines): ask for it only when absent.
{ command -v node && command -v npm; } >/dev/null || need_packages nodejs npm
node -e 'if (typeof fetch !== "function" || !AbortSignal.timeout) process.exit(1)' ||
	fail "Node.js 18 or later is required (fetch, AbortSignal.timeout); found $(node --version)"
find_jar

(cd "$here" && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null)

health_timeout="${E2E_HEALTH_TIMEOUT:-120}"
read -r ballast_port <<<"$(free_ports 1)"
start_ballast
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout} s"

registrant="$(new_token '{"name":"npm registrant","role":"registrant","services":["npm-*"]}')"
reader="$(new_token '{"name":"npm reader","role":"reader"}')"

BALLAST_HOST=127.0.0.1 BALLAST_PORT="$ballast_port" REGISTRANT_TOKEN="$registrant" READER_TOKEN="$reader" \
	OPERATOR_TOKEN="$admin_token" timeout 150 node "$here/watch.js" | tee "$work/watch.log"
grep -q '^consul-npm e2e PASS: ' "$work/watch.log" || fail "watch.js did not pass"
