# shellcheck shell=bash
# Shared by every examples/*/e2e.sh: `source examples/e2e-common.sh NAME` makes $work, a
# fresh temporary directory named after NAME, and gives them:
#
#   need_packages PKG...     installs the Debian packages that are missing (apt-get)
#   need_commands CMD...     fails unless every CMD is on PATH
#   find_jar                 sets $jar to $BALLAST_JAR or target/ballast-*.jar
#   free_ports N             prints N free ports, below the ephemeral range
#   wait_for SECONDS CMD...  runs CMD every 0.2 s until it succeeds or SECONDS pass
#   start_ballast / ballast_up / stop_ballast
#                            Ballast from $jar on $ballast_port with a fresh data dir and a
#                            bootstrap admin token made for the run ($admin_token)
#   admin_curl ARGS...       curl with the admin token (read from a 0600 header file)
#   new_token JSON           prints the secret of a new token (POST /v1/tokens)
#   track PID                stop PID (TERM, then KILL after $tracked_grace s, default 10)
#                            when the script exits
#   random_token / header_file NAME SECRET
#                            a random secret; $work/NAME.header holding it as a bearer token
#   stop_postgres DIR        stops the embedded PostgreSQL of data directory DIR if it runs
#   fail MSG / step MSG / now / elapsed A B
#
# The caller sets $ballast_port before starting Ballast (start_ballast may be called again
# after Ballast was stopped or killed: it starts on the same data, and marks each start in
# $work/ballast.log); it may define on_failure to print more when the script fails. On
# exit every tracked process and Ballast (with its embedded PostgreSQL) are stopped, and
# $work is removed unless the script failed.

if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
	export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
	export PATH="$JAVA_HOME/bin:$PATH"
fi

# The examples' Python helpers run as scripts; this keeps any import from leaving a
# __pycache__ in the tree (.gitignore lists it too).
export PYTHONDONTWRITEBYTECODE=1


fail() {
	echo "FAIL: $*" >&2
	exit 1
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
script_began="$(now)"
step() { echo "== [$(elapsed "$script_began" "$(now)") s] $*"; }

need_packages() {
	local missing=() package
	for package in "$@"; do
		dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
	done
	((${#missing[@]})) || return 0
	echo "installing ${missing[*]}"
	local sudo=()
	(($(id -u) == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	# Other scripts may be installing at the same time: wait for dpkg's lock.
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

need_commands() {
	local command
	for command in "$@"; do
		command -v "$command" >/dev/null || fail "$command is required on PATH"
	done
}

find_jar() {
	jar="${BALLAST_JAR:-}"
	if [[ -z "$jar" ]]; then
		shopt -s nullglob
		local jars=(target/ballast-*.jar)
		shopt -u nullglob
		jar="${jars[0]:-}"
	fi
	[[ -n "$jar" && -f "$jar" ]] || fail "no Ballast jar found; build it first: ./mvnw -DskipTests package"
}

# Ports below the ephemeral range, so that no outgoing connection on this busy machine
# holds one we pick; each is bound once to prove it free, all at the same time so that
# they differ.
free_ports() {
	python3 - "$1" <<'EOF'
import random, socket, sys
wanted = int(sys.argv[1])
ephemeral = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
held = []
for _ in range(1000):
    if len(held) == wanted:
        break
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", random.randrange(10000, ephemeral)))
        held.append(probe)
    except OSError:
        probe.close()
if len(held) < wanted:
    sys.exit("no free ports")
print(" ".join(str(probe.getsockname()[1]) for probe in held))
EOF
}

wait_for() {
	local limit="$1" deadline
	shift
	deadline=$(($(date +%s) + limit))
	until "$@"; do
		(($(date +%s) < deadline)) || return 1
		sleep 0.2
	done
}

tracked=() # every process started here but Ballast, stopped in reverse order
tracked_grace=10
track() { tracked+=("$1"); }

stop_pid() {
	local pid="$1" grace="$2" waited=0
	kill -TERM "$pid" 2>/dev/null || return 0
	while kill -0 "$pid" 2>/dev/null && ((waited < grace * 10)); do
		sleep 0.1
		waited=$((waited + 1))
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

random_token() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

# A header file readable by this user only, so that ps shows no token.
header_file() { (umask 077 && printf 'Authorization: Bearer %s\n' "$2" >"$work/$1.header"); }
admin_curl() { curl -H @"$work/admin.header" "$@"; }

ballast_pid=""
start_ballast() {
	admin_token="${admin_token:-$(random_token)}"
	header_file admin "$admin_token"
	ballast="http://127.0.0.1:$ballast_port"
	echo "---- start $(date -u +%FT%TZ)" >>"$work/ballast.log"
	BALLAST_BOOTSTRAP_ADMIN_TOKEN="$admin_token" java -jar "$jar" --server.port="$ballast_port" \
		--server.address=127.0.0.1 --ballast.data-dir="$work/data" "$@" >>"$work/ballast.log" 2>&1 &
	ballast_pid=$!
}
ballast_up() {
	kill -0 "$ballast_pid" 2>/dev/null || fail "Ballast exited during startup: $(tail -n 5 "$work/ballast.log")"
	curl -fsS -m 2 "$ballast/actuator/health" 2>/dev/null | grep -q '"status":"UP"'
}
# Ballast stops its embedded PostgreSQL on SIGTERM; after a SIGKILL the PostgreSQL it
# started outlives it and is stopped here.
stop_ballast() {
	[[ -n "$ballast_pid" ]] || return 0
	stop_pid "$ballast_pid" 45
	ballast_pid=""
	stop_postgres "$work/data"
}
# Stops the embedded PostgreSQL of the data directory $1 if it still runs (TERM, up to 5 s,
# then KILL).
stop_postgres() {
	local pg_pid
	pg_pid="$(head -n1 "$1/postgres/postmaster.pid" 2>/dev/null || true)"
	if [[ "$pg_pid" =~ ^[0-9]+$ ]] && kill -0 "$pg_pid" 2>/dev/null; then
		kill -TERM "$pg_pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pg_pid" 2>/dev/null || true
	fi
}

new_token() {
	admin_curl -fsS -m 10 -X POST "$ballast/v1/tokens" -H 'Content-Type: application/json' -d "$1" | jq -r '.token // empty'
}

# Set by the caller: lines printed (to stderr) when the script fails, e.g. log tails.
on_failure() { :; }

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	local i
	for ((i = ${#tracked[@]} - 1; i >= 0; i--)); do
		stop_pid "${tracked[i]}" "$tracked_grace"
	done
	stop_ballast
	if ((status != 0)); then
		on_failure >&2 || true
		echo "---- last lines of Ballast's log" >&2
		tail -n 30 "$work/ballast.log" >&2 2>/dev/null || true
		rm -rf "$work/data"
		echo "logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
	exit "$status"
}
# `source examples/e2e-common.sh --functions` (bench/node.sh) defines the functions only:
# no $work, no traps; the caller cleans up after itself.
if [[ "${1:?name the example, or --functions}" != --functions ]]; then
	work="$(mktemp -d "${TMPDIR:-/tmp}/ballast-$1-e2e.XXXXXX")"
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi
