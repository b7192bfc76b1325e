# Shared by the benchmark scripts, which source it from the repository root: the JDK and
# the jar to run (sets jar), the node's admin token and options, stopping the node they
# started, cleaning up on exit, a free loopback port and a clock in milliseconds. The
# sourcing script sets server_pid, generator_pid, stop_timeout, data and work before it
# starts anything. The JDK, the jar, the token and stopping a left-over PostgreSQL come
# from the examples' library, sourced for its functions only (its traps and work
# directory are the examples' own).

# shellcheck source=../examples/e2e-common.sh
source examples/e2e-common.sh --functions
find_jar

# A first admin token new on every run. The node reads it as BALLAST_BOOTSTRAP_ADMIN_TOKEN,
# the load generators (the Java programs, wrk's heartbeat.lua) as BALLAST_TOKEN, and curl
# through bench_curl: all from the environment, so that no command line shows it.
BALLAST_TOKEN="$(random_token)"
BALLAST_BOOTSTRAP_ADMIN_TOKEN="$BALLAST_TOKEN"
export BALLAST_TOKEN BALLAST_BOOTSTRAP_ADMIN_TOKEN
# Options every benchmarked node starts with. The benchmarks measure the server, not the
# per-token write limit (2,000 writes/s by default), so the limit is lifted out of reach;
# nor the per-token stream cap (1,000 streams a node): one token opens all of a run's
# watchers, 10,000 of them in the watch benchmarks.
node_options=(--ballast.rate-limit.writes-per-second=1000000 --ballast.watch.max-streams-per-token=100000)
# curl with the token, from a header file that only curl sees.
bench_curl() { curl -H @<(printf 'Authorization: Bearer %s\n' "$BALLAST_TOKEN") "$@"; }

# Stops the server: SIGTERM, bounded wait, then SIGKILL. After a SIGKILL the embedded
# PostgreSQL (a child process of its own) would outlive the JVM, so it is stopped too.
stop_server() {
	[[ -n "${server_pid:-}" ]] || return 0
	local pid="$server_pid" waited=0
	server_pid=""
	kill -TERM "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null && ((waited < stop_timeout * 10)); do
		sleep 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "server (pid $pid) did not stop within ${stop_timeout}s; killing it" >&2
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		stop_postgres "${data:-}"
	else
		wait "$pid" 2>/dev/null || true
		echo "server stopped in $(awk "BEGIN { printf \"%.1f\", $waited / 10 }") s"
	fi
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	# The trap is set when this file is sourced, before the script sets its variables.
	if [[ -n "${generator_pid:-}" ]]; then
		kill -TERM "$generator_pid" 2>/dev/null || true
		wait "$generator_pid" 2>/dev/null || true
	fi
	stop_server
	[[ -z "${work:-}" ]] || rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
	local port
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "no free port found" >&2
	return 1
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Waits until a process answers: until URL's body holds PATTERN, while PID lives, for at
# most SECONDS; otherwise prints the last lines of LOG and fails.
await_up() { # name pid url pattern seconds log
	local deadline=$(($(now_ms) + $5 * 1000))
	until curl -fsS -m 2 "$3" 2>/dev/null | grep -q "$4"; do
		if ! kill -0 "$2" 2>/dev/null || (($(now_ms) > deadline)); then
			echo "$1 did not come up within $5 s; last lines of its log:" >&2
			tail -n 40 "$6" >&2
			return 1
		fi
		sleep 0.05
	done
}
