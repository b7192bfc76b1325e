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

packages=(chromium curl nodejs npm python3)
missing=()
for package in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
# Node and npm may come from elsewhere than Debian: only what is absent is installed.
if command -v node >/dev/null && command -v npm >/dev/null; then
	missing=("${missing[@]/nodejs/}")
	missing=("${missing[@]/npm/}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
	echo "installing ${missing[*]}"
	sudo=()
	(($(id -u) == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi
for tool in java node npm curl python3 /usr/bin/chromium; do
	command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
(cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)

jar="${BALLAST_JAR:-}"
if [[ -z "$jar" ]]; then
	shopt -s nullglob
	jars=(target/ballast-*.jar)
	shopt -u nullglob
	jar="${jars[0]:-}"
fi
[[ -n "$jar" && -f "$jar" ]] || { echo "No Ballast jar found; build it first: ./mvnw -DskipTests package" >&2; exit 1; }

health_timeout="${E2E_HEALTH_TIMEOUT:-240}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-console-e2e.XXXXXX")"
shots="$PWD/target/console-screenshots"
rm -rf "$shots"
mkdir -p "$shots"

ballast_pid=""
data="$work/data"

stop_ballast() {
	[[ -n "$ballast_pid" ]] || return 0
	kill -TERM "$ballast_pid" 2>/dev/null || true
	for _ in $(seq 450); do kill -0 "$ballast_pid" 2>/dev/null || break; sleep 0.1; done
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
	if ((status != 0)) && [[ -f "$work/ballast.log" ]]; then
		echo "--- last lines of the Ballast log ---" >&2
		tail -n 40 "$work/ballast.log" >&2
	fi
	rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port="$(python3 - <<'EOF'
import random, socket
ephemeral = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(1000):
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", random.randrange(10000, ephemeral)))
    except OSError:
        probe.close()
        continue
    print(probe.getsockname()[1])
    break
else:
    raise SystemExit("no free port")
EOF
)"
base="http://127.0.0.1:$port"

# The admin token reaches Ballast through its environment and curl through a header
# file readable by this user only, so that ps shows it nowhere.
admin_token="$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
(umask 077 && printf 'Authorization: Bearer %s\n' "$admin_token" >"$work/admin.header")

BALLAST_BOOTSTRAP_ADMIN_TOKEN="$admin_token" java -jar "$jar" --server.port="$port" --server.address=127.0.0.1 \
	--ballast.data-dir="$data" >"$work/ballast.log" 2>&1 &
ballast_pid=$!
deadline=$(($(date +%s) + health_timeout))
until curl -fsS -m 2 "$base/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; do
	kill -0 "$ballast_pid" 2>/dev/null || { echo "Ballast exited while starting" >&2; exit 1; }
	(($(date +%s) < deadline)) || { echo "Ballast not healthy after ${health_timeout}s" >&2; exit 1; }
	sleep 0.5
done

api() {
	curl -fsS -m 10 -H "@$work/admin.header" -H 'Content-Type: application/json' "$@"
}
token_for() {
	api -X POST "$base/v1/tokens" --data "{\"name\":\"console e2e $1\",\"role\":\"$1\"}" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
operator_token="$(token_for operator)"
reader_token="$(token_for reader)"
# Leases of 300 s outlast the run, which takes well under a minute. One zone: the guard's
# zone scope then refuses exactly what its service scope refuses.
i=1
for id in a b c d; do
	api -X PUT "$base/v1/services/shop/instances/$id" \
		--data "{\"address\":\"10.0.0.$i\",\"port\":8080,\"weight\":100,\"zone\":\"az-1\",\"leaseTtlSeconds\":300,\"metadata\":{\"version\":\"1.4.$i\",\"color\":\"blue\"}}" >/dev/null
	i=$((i + 1))
done

BALLAST_URL="$base" OPERATOR_TOKEN="$operator_token" READER_TOKEN="$reader_token" \
	CURL_HEADER="$work/admin.header" SHOTS="$shots" PROFILE="$work/profile" \
	timeout 300 node "$here/e2e.mjs"
