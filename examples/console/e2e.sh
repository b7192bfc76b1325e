#!/usr/bin/env bash
# The console in a real browser, against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/console/e2e.sh
#
# On 127.0.0.1, on a free port, it starts Ballast (embedded PostgreSQL, fresh data
# directory) with an admin token made for this run, creates an operator, a reader and a
# second admin token, registers the services the run needs and runs e2e.mjs in Debian's
# Chromium through playwright-core:
#   shop    instances a b c d (weight 100, one zone, tags): sign in, services at a glance,
#           weights, a curl edit shown live, a weight edit, a guard refusal explained, a
#           drain whose bar goes to 0, a release started, advanced, aborted and its history
#   solo    one instance whose 5 s lease runs out: the ejection cap holds it routable (it
#           is the last one), CRITICAL, and the console says so instead of a green 1 / 1
#   pay     p1 p2 p3 and two 5 s leases that run out: e1 (weight 10) is ejected, then the
#           cap (20% of 410) holds h1 (100) routable
#   cart    c1 c2 c3 with a subscriber (curl, lb-edge) that never acknowledges: a drain
#           that waits for it, a deregistration, the settings (a refused value shown at
#           its field)
#   zoned   three instances in each of two zones, prefer-local with a 20% cap, two of
#           zone za's in maintenance: each zone's routable and crossing shares
#   probed  down, whose HTTP check the registry runs against a port nothing listens on,
#           beside up1 and up2: its cause (a failing check, not its lease) in its row and the
#           header, the check's output on its page; the node probing it on the nodes page
# then the cross-service audit log with filters, search by tag and address, cart's
# subscribers, the nodes, a metadata and tags edit, tokens created (the secret shown once)
# and revoked by an admin down to the last admin token, which is not offered, and a reader
# who sees no write controls. Ejected instances stay listed for the run (ballast.lease.remove-after=10m).
# Screenshots go to target/console-screenshots/NN-step.png (docs/console.md says what
# each shows).
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
read -r ballast_port refusing_port <<<"$(free_ports 2)"
start_ballast --ballast.lease.remove-after=10m
wait_for "$health_timeout" ballast_up || fail "Ballast not healthy within ${health_timeout} s"

api() { admin_curl -fsS -m 10 -H 'Content-Type: application/json' "$@"; }
register() { # SERVICE ID BODY
	api -X PUT "$ballast/v1/services/$1/instances/$2" --data "$3" >/dev/null
}
operator_token="$(new_token '{"name":"console e2e operator","role":"operator"}')"
reader_token="$(new_token '{"name":"console e2e reader","role":"reader"}')"
second_admin_token="$(new_token '{"name":"console e2e admin","role":"admin"}')"

# The leases that run out first, so that they have expired when the run looks at them.
register solo only '{"address":"10.4.0.1","port":8080,"weight":100,"leaseTtlSeconds":5}'
register pay e1 '{"address":"10.1.0.11","port":8080,"weight":10,"leaseTtlSeconds":5}'
register pay h1 '{"address":"10.1.0.12","port":8080,"weight":100,"leaseTtlSeconds":5}'
for i in 1 2 3; do
	tags='["v3"]'
	if ((i == 1)); then tags='["v3","canary"]'; fi
	register pay "p$i" "{\"address\":\"10.1.0.$i\",\"port\":8080,\"weight\":100,\"leaseTtlSeconds\":300,\"tags\":$tags}"
done
# Leases of 300 s outlast the run, which takes about a minute. One zone: the guard's zone
# scope then refuses exactly what its service scope refuses.
i=1
for id in a b c d; do
	tags='["v1"]'
	if [[ $id == d ]]; then tags='["v2","canary"]'; fi
	register shop "$id" "{\"address\":\"10.0.0.$i\",\"port\":8080,\"weight\":100,\"zone\":\"az-1\",\"leaseTtlSeconds\":300,\"metadata\":{\"version\":\"1.4.$i\",\"color\":\"blue\"},\"tags\":$tags}"
	i=$((i + 1))
done
for i in 1 2 3; do
	register cart "c$i" "{\"address\":\"10.2.0.$i\",\"port\":8080,\"weight\":100,\"leaseTtlSeconds\":300}"
done
i=1
for id in a1 a2 a3 b1 b2 b3; do
	register zoned "$id" "{\"address\":\"10.3.0.$i\",\"port\":8080,\"weight\":100,\"zone\":\"z${id:0:1}\",\"leaseTtlSeconds\":300}"
	i=$((i + 1))
done
# The registry probes down's own address and port, where nothing listens: its check fails.
register probed down "{\"address\":\"127.0.0.1\",\"port\":$refusing_port,\"leaseTtlSeconds\":300,\"checks\":[{\"http\":\"http://127.0.0.1:$refusing_port/health\",\"intervalSeconds\":1,\"timeoutMillis\":500}]}"
register probed up1 '{"address":"10.5.0.1","port":8080,"leaseTtlSeconds":300}'
register probed up2 '{"address":"10.5.0.2","port":8080,"leaseTtlSeconds":300}'
api -X PATCH "$ballast/v1/services/zoned" --data '{"locality":{"mode":"PREFER_LOCAL","maxCrossZonePercent":20}}' >/dev/null
api -X POST "$ballast/v1/services/zoned/instances/a2/maintenance" --data '{"reason":"disk"}' >/dev/null
api -X POST "$ballast/v1/services/zoned/instances/a3/maintenance" --data '{"reason":"disk","force":true}' >/dev/null

# Heartbeats this node absorbs and writes: its lease-writer position on the nodes page.
for id in a b c; do
	api -X POST "$ballast/v1/services/shop/instances/$id/heartbeat" >/dev/null
done

# A balancer that follows cart and never acknowledges: a drain of cart waits for it.
curl -sS -N -H @"$work/admin.header" "$ballast/v1/services/cart/watch?subscriber=lb-edge" >/dev/null 2>&1 &
track $!

BALLAST_URL="$ballast" OPERATOR_TOKEN="$operator_token" READER_TOKEN="$reader_token" \
	ADMIN_TOKEN="$second_admin_token" CURL_HEADER="$work/admin.header" SHOTS="$shots" PROFILE="$work/profile" \
	timeout 300 node "$here/e2e.mjs"
