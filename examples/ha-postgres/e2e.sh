#!/usr/bin/env bash
# Ballast on a replicated PostgreSQL that loses its primary, end to end, against the
# packaged jar:
#
#   ./mvnw -DskipTests package      # once: target/ballast-*.jar
#   examples/ha-postgres/e2e.sh
#
# On 127.0.0.1 only, on free ports: one etcd, two PostgreSQL 15 members under Patroni
# (synchronous_mode: true, pg_rewind), three Ballast nodes on the multi-host URL
# jdbc:postgresql://127.0.0.1:P1,127.0.0.1:P2/postgres (each node forces
# targetServerType=primary itself). examples/ha-postgres/HaLoad.java keeps the load up
# and checks it: registrations at 20/s with Idempotency-Keys (sent again with the same
# key after a 503 or a lost answer), heartbeats for 2,000 instances (15 s leases, a beat
# every 5 s), 100 SSE watchers spread over the three nodes (resuming with
# Last-Event-ID), a drain under way. Then:
#
#   1. kill -9 of the primary's PostgreSQL (postmaster and backends) and its Patroni;
#      one line: time to the first successful write, acknowledged writes lost, watcher
#      gaps and duplicates, watchers whose state differs from the registry's at the same
#      revision, false expiries, 5xx other than 503 with Retry-After, the drain's end;
#   2. the old primary back as a replica (Patroni, pg_rewind), a second failover the
#      same way, the line again;
#   3. a rolling restart of the three nodes, one at a time under the load, the restarted
#      ones bringing a new migration (Flyway runs it on the first that starts): no write
#      may fail;
#   4. asynchronous mode (synchronous_mode off), replication cut on the primary before the
#      kill so that a tail of acknowledged writes is really lost: what was lost and how
#      the watchers were told.
#
# Phases 1 to 3 must show 0 lost, 0 gaps and duplicates, 0 differing watchers, 0 false
# expiries, 0 bad 5xx and the drain DRAINED, or the script fails; phase 4 is checked the
# same but for the lost writes, which it counts, and every watcher that had seen one of
# them must have had a snapshot and end in the registry's state, or it fails too. Every
# process it starts
# (etcd, Patroni, PostgreSQL, the nodes, the load) is stopped on exit; missing Debian
# packages are installed with apt-get. About 7 minutes on a busy 2-core machine.
# Environment: BALLAST_JAR, E2E_HEALTH_TIMEOUT (s to wait for a node, default 180).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
source examples/e2e-common.sh ha-postgres

# Patroni's DCS client: Debian's patroni 3.0.2 speaks etcd's v3 API ("etcd3:") through
# its own HTTP client on etcd's JSON gateway, and needs python3-etcd only for its error
# classes. So etcd 3.4 runs as it is, without --enable-v2, and Debian's python3-etcd3
# (a gRPC client Patroni does not use) is not needed.
need_packages postgresql-15 patroni python3-etcd etcd-server curl jq python3
find_jar
need_commands java javac setpriv psql
health_timeout="${E2E_HEALTH_TIMEOUT:-180}"
pg_bin=/usr/lib/postgresql/15/bin
[[ -x "$pg_bin/postgres" ]] || fail "no PostgreSQL 15 binaries in $pg_bin"

read -r etcd_port etcd_peer_port pg_a pg_b rest_a rest_b node_0 node_1 node_2 <<<"$(free_ports 9)"
node_ports=("$node_0" "$node_1" "$node_2")
members=(a b)
declare -A pg_port=([a]="$pg_a" [b]="$pg_b") rest_port=([a]="$rest_a" [b]="$rest_b") patroni_pid=()
node_pid=()
load_pid=""
etcd_pid=""
super_password="$(random_token)"
replication_password="$(random_token)"
url="jdbc:postgresql://127.0.0.1:$pg_a,127.0.0.1:$pg_b/postgres"
cluster="$work/cluster"

# PostgreSQL refuses to run as root: as root (CI) the members run as Debian's postgres
# user, which must reach the cluster's directory.
as_postgres=()
mkdir -p "$cluster"
if (($(id -u) == 0)); then
	as_postgres=(setpriv --reuid postgres --regid postgres --init-groups)
	chmod 711 "$work"
	chown postgres:postgres "$cluster"
fi

on_failure() {
	for member in "${members[@]}"; do
		echo "---- Patroni $member (last lines)"
		tail -n 15 "$work/patroni-$member.log" 2>/dev/null || true
	done
	for i in 0 1 2; do
		echo "---- node $i (WARN and ERROR lines)"
		grep -E ' (WARN|ERROR) ' "$work/node$i.log" 2>/dev/null | tail -n 10 || true
	done
	echo "---- load (last lines)"
	tail -n 40 "$work/load.log" 2>/dev/null || true
}

# Everything this script started, newest first: the load, the nodes, Patroni (which
# stops its PostgreSQL), any PostgreSQL left without its Patroni, etcd.
stop_cluster() {
	local pid member postmaster
	[[ -z "$load_pid" ]] || stop_pid "$load_pid" 5
	for pid in "${node_pid[@]}"; do stop_pid "$pid" 30; done
	for member in "${members[@]}"; do
		[[ -z "${patroni_pid[$member]:-}" ]] || stop_pid "${patroni_pid[$member]}" 20
	done
	for member in "${members[@]}"; do
		postmaster="$(head -n1 "$cluster/$member/postmaster.pid" 2>/dev/null || true)"
		if [[ "$postmaster" =~ ^[0-9]+$ ]] && kill -0 "$postmaster" 2>/dev/null; then
			stop_pid "$postmaster" 10
		fi
	done
	[[ -z "$etcd_pid" ]] || stop_pid "$etcd_pid" 5
	exec 7>&- 2>/dev/null || true
}
# errexit off first: (exit "$status") hands cleanup the status and must not end the trap.
trap 'status=$?; set +e; stop_cluster; (exit "$status"); cleanup' EXIT

# ------------------------------------------------------------------ etcd and Patroni

step "etcd on 127.0.0.1:$etcd_port"
etcd --name e2e --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
	--advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" \
	--initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
	--initial-cluster "e2e=http://127.0.0.1:$etcd_peer_port" --log-level warn >"$work/etcd.log" 2>&1 &
etcd_pid=$!
etcd_up() { curl -fsS -m 2 "http://127.0.0.1:$etcd_port/health" 2>/dev/null | grep -q '"health":"true"'; }
wait_for 60 etcd_up || fail "etcd did not come up: $(tail -n 5 "$work/etcd.log")"

# ttl 10 s and a 1 s loop: the leader key of a dead primary runs out 10 s after its last
# renewal, then its synchronous standby takes over. Only a synchronous standby may be
# promoted in synchronous_mode, so nothing acknowledged is lost.
write_member_config() { # member
	local member="$1"
	cat >"$cluster/$member.yml" <<-YAML
		scope: ballast-e2e
		namespace: /ballast-e2e/
		name: $member
		restapi:
		  listen: 127.0.0.1:${rest_port[$member]}
		  connect_address: 127.0.0.1:${rest_port[$member]}
		etcd3:
		  hosts: 127.0.0.1:$etcd_port
		bootstrap:
		  dcs:
		    ttl: 10
		    loop_wait: 1
		    retry_timeout: 4
		    maximum_lag_on_failover: 1048576
		    synchronous_mode: true
		    postgresql:
		      use_pg_rewind: true
		      parameters:
		        max_connections: 200
		        wal_level: replica
		        hot_standby: "on"
		        wal_log_hints: "on"
		        max_wal_senders: 10
		        max_replication_slots: 10
		        wal_receiver_status_interval: 1s
		  initdb:
		  - encoding: UTF8
		  - auth-host: scram-sha-256
		  - auth-local: trust
		postgresql:
		  listen: 127.0.0.1:${pg_port[$member]}
		  connect_address: 127.0.0.1:${pg_port[$member]}
		  data_dir: $cluster/$member
		  bin_dir: $pg_bin
		  pgpass: $cluster/pgpass-$member
		  pg_hba:
		  - local all all trust
		  - host replication replicator 127.0.0.1/32 scram-sha-256
		  - host all all 127.0.0.1/32 scram-sha-256
		  authentication:
		    superuser: {username: postgres, password: "$super_password"}
		    replication: {username: replicator, password: "$replication_password"}
		  parameters:
		    unix_socket_directories: $cluster
	YAML
	chmod 600 "$cluster/$member.yml"
	((${#as_postgres[@]} == 0)) || chown postgres:postgres "$cluster/$member.yml"
}
start_member() { # member
	echo "---- start $(date -u +%FT%TZ)" >>"$work/patroni-$1.log"
	"${as_postgres[@]}" patroni "$cluster/$1.yml" >>"$work/patroni-$1.log" 2>&1 &
	patroni_pid[$1]=$!
	# Killed on purpose below: no job report of it in the output.
	disown "$!"
}
other() { [[ "$1" == a ]] && echo b || echo a; }
rest() { curl -fsS -m 2 "http://127.0.0.1:${rest_port[$1]}$2" 2>/dev/null; }
is_primary() { [[ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:${rest_port[$1]}/primary")" == 200 ]]; }
is_sync_standby() { # member primary
	rest "$2" /cluster | jq -e --arg m "$1" '.members[] | select(.name == $m and .role == "sync_standby" and .state == "running")' >/dev/null
}
is_replica() { # member primary: streaming, asynchronous
	rest "$2" /cluster | jq -e --arg m "$1" '.members[] | select(.name == $m and .role == "replica" and .state == "running")' >/dev/null
}
sql() { # member statement
	PGPASSWORD="$super_password" psql -X -q -At -h 127.0.0.1 -p "${pg_port[$1]}" -U postgres -d postgres -c "$2"
}

step "PostgreSQL members a ($pg_a) and b ($pg_b) under Patroni, synchronous_mode on"
for member in "${members[@]}"; do write_member_config "$member"; done
start_member a
wait_for 120 is_primary a || fail "member a did not become primary"
start_member b
wait_for 120 is_sync_standby b a || fail "member b did not become a synchronous standby: $(rest a /cluster)"
echo "   $(rest a /cluster | jq -c '[.members[] | {name, role, state, timeline}]')"

# ------------------------------------------------------------------ Ballast and the load

admin_token="$(random_token)"
(umask 077 && printf '%s\n' "$admin_token" >"$work/token")
start_node() { # index [options...]
	local i="$1"
	shift
	echo "---- start $(date -u +%FT%TZ)" >>"$work/node$i.log"
	BALLAST_BOOTSTRAP_ADMIN_TOKEN="$admin_token" SPRING_DATASOURCE_PASSWORD="$super_password" \
		java -Xmx768m -jar "$jar" --server.port="${node_ports[$i]}" --server.address=127.0.0.1 \
		--ballast.data-dir="$work/node$i" --spring.datasource.url="$url" --spring.datasource.username=postgres \
		"$@" >>"$work/node$i.log" 2>&1 &
	node_pid[i]=$!
}
node_up() { # index
	kill -0 "${node_pid[$1]}" 2>/dev/null || fail "node $1 exited: $(tail -n 5 "$work/node$1.log")"
	curl -fsS -m 2 "http://127.0.0.1:${node_ports[$1]}/actuator/health" 2>/dev/null | grep -q '"status":"UP"'
}

step "three Ballast nodes on $url (ports ${node_ports[*]}; jar $jar)"
# The first one migrates the empty database and makes the admin token; then the others.
start_node 0
wait_for "$health_timeout" node_up 0 || fail "node 0 not healthy within ${health_timeout}s"
start_node 1
start_node 2
wait_for "$health_timeout" node_up 1 || fail "node 1 not healthy within ${health_timeout}s"
wait_for "$health_timeout" node_up 2 || fail "node 2 not healthy within ${health_timeout}s"

step "the load: 2,000 heartbeating instances, registrations at 20/s, 100 watchers"
javac -d "$work/classes" bench/src/ballast/bench/*.java "$here/HaLoad.java"
mkfifo "$work/control"
nodes_list="http://127.0.0.1:$node_0,http://127.0.0.1:$node_1,http://127.0.0.1:$node_2"
java -Xmx512m -cp "$work/classes" ballast.bench.HaLoad --nodes "$nodes_list" --token-file "$work/token" --rate 20 --ttl 15 \
	--beat 5 --watchers 100 --instances 2000 <"$work/control" >"$work/load.log" 2>&1 &
load_pid=$!
exec 7>"$work/control"
load_ready() {
	kill -0 "$load_pid" 2>/dev/null || fail "the load exited: $(tail -n 20 "$work/load.log")"
	grep -qx READY "$work/load.log"
}
wait_for 240 load_ready || fail "the load did not start within 240 s"
grep READY "$work/load.log" | head -n1 | cut -d' ' -f2- | sed 's/^/   /'

# Sends a check and waits for its verdict (bounded); prints the RESULT line.
results=()
check() { # label sync|async
	echo "check $1 $2" >&7
	verdict_of() { grep -q "^VERDICT $1 " "$work/load.log"; }
	wait_for 420 verdict_of "$1" || fail "no verdict for $1 within 420 s"
	local result verdict
	result="$(grep "^RESULT $1 " "$work/load.log" | cut -d' ' -f3-)"
	verdict="$(grep "^VERDICT $1 " "$work/load.log" | cut -d' ' -f3-)"
	results+=("$1: $result")
	echo "   $1: $result"
	echo "   verdict: $verdict"
	grep -E "^[^ ]+ (fault|anomaly|lost|watcher|expired)" "$work/load.log" | grep -F -v -x -f "$work/printed" 2>/dev/null |
		head -n 10 | sed 's/^/   | /' || true
	grep -E "^[^ ]+ (fault|anomaly|lost|watcher|expired)" "$work/load.log" >"$work/printed" || true
	[[ "$verdict" == PASS* ]] || fail "$1: $verdict"
}
: >"$work/printed"

primary_now() { for member in "${members[@]}"; do is_primary "$member" && echo "$member" && return 0; done; return 1; }

# kill -9 of a member's Patroni and PostgreSQL (the postmaster and every backend), as when
# its machine is lost; the load is told the moment.
kill_member() { # member
	local member="$1" postmaster children
	postmaster="$(head -n1 "$cluster/$member/postmaster.pid")"
	children="$(ps -o pid= --ppid "$postmaster" | tr '\n' ' ')"
	echo "mark $(date +%s%3N)" >&7
	# shellcheck disable=SC2086
	kill -KILL "${patroni_pid[$member]}" "$postmaster" $children
	patroni_pid[$member]=""
}

failover() { # label
	local old new began
	old="$(primary_now)" || fail "no primary before $1"
	new="$(other "$old")"
	step "$1: drain hb-0/i-$drained over 30 s, then kill -9 of the primary ($old: Patroni and PostgreSQL)"
	echo "drain hb-0 i-$drained 30" >&7
	drained=$((drained + 10))
	sleep 8
	began="$(now)"
	kill_member "$old"
	wait_for 90 is_primary "$new" || fail "$new was not promoted within 90 s: $(rest "$new" /cluster)"
	echo "   $new promoted $(elapsed "$began" "$(now)") s after the kill"
	# The load goes on across the promotion; then the check.
	sleep 15
	check "$1" sync
}
rejoin() { # member
	local began
	began="$(now)"
	step "$1 back as a replica of $(other "$1") (Patroni, pg_rewind)"
	start_member "$1"
	wait_for 180 is_sync_standby "$1" "$(other "$1")" || fail "$1 did not come back as a synchronous standby"
	echo "   $1 is a synchronous standby again after $(elapsed "$began" "$(now)") s;" \
		"$(grep -c 'pg_rewind exit code=0' "$work/patroni-$1.log") successful pg_rewind run(s) in its log"
}

drained=0
sleep 10
failover "failover-1"
rejoin "$(other "$(primary_now)")"
sleep 5
failover "failover-2"
rejoin "$(other "$(primary_now)")"

# ------------------------------------------------------------------ rolling upgrade

step "rolling restart of the three nodes under the load, each restarted one bringing a new migration"
mkdir -p "$work/next-migration"
cat >"$work/next-migration/V100000__e2e_rolling_upgrade.sql" <<'SQL'
-- What a release's migration must be to roll: additive, so that the nodes still running
-- the previous version keep working beside it.
CREATE TABLE e2e_rolling_upgrade (node text PRIMARY KEY, started_at timestamptz NOT NULL DEFAULT now());
SQL
for i in 0 1 2; do
	stop_pid "${node_pid[$i]}" 45
	start_node "$i" "--spring.flyway.locations=classpath:db/migration,filesystem:$work/next-migration"
	wait_for "$health_timeout" node_up "$i" || fail "node $i not healthy again within ${health_timeout}s"
	echo "   node $i back: $(grep -E 'Migrating schema|Schema .* is up to date' "$work/node$i.log" | tail -n1 |
		sed 's/.* : //')"
	sleep 5
done
check rolling sync

# ------------------------------------------------------------------ asynchronous mode

primary="$(primary_now)" || fail "no primary before the asynchronous run"
standby="$(other "$primary")"
step "asynchronous mode: synchronous_mode off, replication cut on $primary, then kill -9 of $primary"
# A standby further behind than maximum_lag_on_failover is never promoted; 64 MiB lets
# this one be, with the tail it misses.
curl -fsS -m 5 -X PATCH -d '{"synchronous_mode": false, "maximum_lag_on_failover": 67108864}' \
	"http://127.0.0.1:${rest_port[$primary]}/config" >/dev/null
wait_for 60 is_replica "$standby" "$primary" || fail "$standby did not turn asynchronous"
sleep 5
# The standby can no longer log in to stream: the primary commits alone from here on.
sql "$primary" "ALTER ROLE replicator NOLOGIN"
sql "$primary" "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_replication" >/dev/null
sleep 4
behind="$(sql "$primary" "SELECT pg_current_wal_lsn()")"
echo "   primary at WAL $behind, standby at $(sql "$standby" "SELECT pg_last_wal_receive_lsn()")"
began="$(now)"
kill_member "$primary"
wait_for 90 is_primary "$standby" || fail "$standby was not promoted within 90 s: $(rest "$standby" /cluster)"
echo "   $standby promoted $(elapsed "$began" "$(now)") s after the kill"
sleep 15
check async async

echo quit >&7
echo
echo "ha-postgres e2e PASS (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
for line in "${results[@]}"; do echo "  $line"; done
