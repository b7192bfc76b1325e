#!/usr/bin/env bash
# The console in a real browser, against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/console/e2e.sh
#
# On 127.0.0.1, on a free port, it starts Ballast (embedded PostgreSQL, fresh data
# directory) with an admin token made for this run, creates an operator and a reader
# token, registers the service "shop" (instances a b c d, weight 100, one zone) and
# runs e2e.mjs in Debian's Chromium through playwright-core: sign in, services at a
# glance, a service's weights, a weight edit made by curl shown live, a weight edit in
# the console, a guard refusal explained, a drain whose bar goes to 0, a release started,
# advanced and aborted, and a reader who sees no write controls. Screenshots go to
# target/console-screenshots/NN-step.png (docs/console.md says what each shows).
#
# It installs what it lacks: Debian's chromium, curl (apt-get) and playwright-core
# (npm ci, from the committed package-lock.json; it never downloads a browser). Every
# process it starts is stopped on exit. Environment: BALLAST_JAR (default
# target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to wait for Ballast, default 240).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
	export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
	export PATH="$JAVA_HOME/bin:$PATH"
fi

# shellcheck source=../e2e-common.sh
source examples/e2e-common.sh console

need_packages chromium curl jq python3
# Node.js may come from elsewhere than Debian (as on our machines): ask for it only when absent.
{ command -v node && command -v npm; } >/dev/null || need_packages nodejs npm
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium is required"
(cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
find_jar

health_timeout="${E2E_HEALTH_TIMEOUT:-240}"
shots="$PWD/target/console-screenshots"
rm -rf "$shots"
mkdir -p "$shots"

# The admin token reaches Ballast through its environment and curl through a header
# file readable by this user only (start_ballast), so that ps shows it nowhere.
read -r ballast_port <<<"$(free_ports 1)"
start_ballast
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout} s"

api() { admin_curl -fsS -m 10 -H 'Content-Type: application/json' "$@"; }
operator_token="$(new_token '{"name":"console e2e operator","role":"operator"}')"
reader_token="$(new_token '{"name":"console e2e reader","role":"reader"}')"
# Leases of 300 s outlast the run, which takes well under a minute. One zone: the guard's
# zone scope then refuses exactly what its service scope refuses.
i=1
for id in a b c d; do
	api -X PUT "$ballast/v1/services/shop/instances/$id" \
		--data "{\"address\":\"10.0.0.$i\",\"port\":8080,\"weight\":100,\"zone\":\"az-1\",\"leaseTtlSeconds\":300,\"metadata\":{\"version\":\"1.4.$i\",\"color\":\"blue\"}}" >/dev/null
	i=$((i + 1))
done

BALLAST_URL="$ballast" OPERATOR_TOKEN="$operator_token" READER_TOKEN="$reader_token" \
	CURL_HEADER="$work/admin.header" SHOTS="$shots" PROFILE="$work/profile" \
	timeout 300 node "$here/e2e.mjs"
