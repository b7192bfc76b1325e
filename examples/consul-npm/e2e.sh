#!/usr/bin/env bash
# End-to-end check of Ballast's Consul-compatible API with the npm `consul` client
# (2.0.x, pinned by package-lock.json), against the packaged Ballast jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/consul-npm/e2e.sh
#
# On 127.0.0.1 only, on a free port, it starts Ballast (embedded PostgreSQL, fresh data
# directory, a bootstrap admin token made for this run), makes a registrant token for
# npm-* and a reader token, and runs watch.js: three instances registered with TTL checks
# and Meta.weight, their checks passed every 3 s, the service watched with blocking
# queries, a weight edit and a drain made through Ballast's own API and seen by the
# watch, a check failing and passing again, maintenance refused by the guard.
#
# It prints one summary line and exits non-zero when a check fails. Every process it
# starts is stopped on exit. Node.js and npm are installed with apt-get when missing
# (Debian 12); the client comes from `npm ci`. Environment: BALLAST_JAR (default
# target/ballast-*.jar), E2E_HEALTH_TIMEOUT (seconds to wait for Ballast, default 120).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
	export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
	export PATH="$JAVA_HOME/bin:$PATH"
fi

missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then
	echo "installing ${missing[*]}"
	sudo=()
	(($(id -u) == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi
node -e 'if (typeof fetch !== "function" || !AbortSignal.timeout) process.exit(1)' ||
	{ echo "Node.js 18 or later is required (fetch, AbortSignal.timeout); found $(node --version)" >&2; exit 1; }

jar="${BALLAST_JAR:-}"
if [[ -z "$jar" ]]; then
	shopt -s nullglob
	jars=(target/ballast-*.jar)
	shopt -u nullglob
	jar="${jars[0]:-}"
fi
[[ -n "$jar" && -f "$jar" ]] || { echo "No Ballast jar found; build it first: ./mvnw -DskipTests package" >&2; exit 1; }

(cd "$here" && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null)

health_timeout="${E2E_HEALTH_TIMEOUT:-120}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-consul-npm-e2e.XXXXXX")"
data="$work/data"
admin_token="$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
ballast_pid=""

stop_ballast() {
	[[ -n "$ballast_pid" ]] || return 0
	kill -TERM "$ballast_pid" 2>/dev/null || true
	local waited=0
	while kill -0 "$ballast_pid" 2>/dev/null && ((waited < 450)); do
		sleep 0.1
		waited=$((waited + 1))
	done
	kill -KILL "$ballast_pid" 2>/dev/null || true
	wait "$ballast_pid" 2>/dev/null || true
	ballast_pid=""
	# After a SIGKILL the embedded PostgreSQL outlives Ballast: stop it too.
	local pg_pid
	pg_pid="$(head -n1 "$data/postgres/postmaster.pid" 2>/dev/null || true)"
	if [[ "$pg_pid" =~ ^[0-9]+$ ]] && kill -0 "$pg_pid" 2>/dev/null; then
		kill -TERM "$pg_pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pg_pid" 2>/dev/null || true
	fi
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	stop_ballast
	if ((status != 0)); then
		echo "---- last lines of Ballast's log" >&2
		tail -n 40 "$work/ballast.log" >&2 2>/dev/null || true
		rm -rf "$data"
		echo "logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A port below the ephemeral range, bound once to prove it free.
port="$(python3 - <<'PY'
import random, socket
ephemeral = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(1000):
    probe = socket.socket()
    try:
        candidate = random.randrange(10000, ephemeral)
        probe.bind(("127.0.0.1", candidate))
        print(candidate)
        break
    except OSError:
        pass
    finally:
        probe.close()
PY
)"
[[ "$port" =~ ^[0-9]+$ ]] || fail "no free port"
ballast="http://127.0.0.1:$port"

BALLAST_BOOTSTRAP_ADMIN_TOKEN="$admin_token" java -jar "$jar" --server.port="$port" --server.address=127.0.0.1 \
	--ballast.data-dir="$data" >"$work/ballast.log" 2>&1 &
ballast_pid=$!
deadline=$((SECONDS + health_timeout))
until curl -fsS -m 2 "$ballast/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; do
	kill -0 "$ballast_pid" 2>/dev/null || fail "Ballast exited during startup"
	((SECONDS < deadline)) || fail "Ballast not healthy within ${health_timeout} s"
	sleep 0.5
done

token() {
	curl -fsS -m 10 -X POST "$ballast/v1/tokens" -H "Authorization: Bearer $admin_token" \
		-H 'Content-Type: application/json' -d "$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
registrant="$(token '{"name":"npm registrant","role":"registrant","services":["npm-*"]}')"
reader="$(token '{"name":"npm reader","role":"reader"}')"

BALLAST_HOST=127.0.0.1 BALLAST_PORT="$port" REGISTRANT_TOKEN="$registrant" READER_TOKEN="$reader" \
	OPERATOR_TOKEN="$admin_token" timeout 150 node "$here/watch.js" | tee "$work/watch.log"
grep -q '^consul-npm e2e PASS: ' "$work/watch.log" || fail "watch.js did not pass"
