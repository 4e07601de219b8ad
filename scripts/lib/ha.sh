# A throwaway pg_auto_failover formation on loopback, for the failover tests and benchmarks:
# a monitor and two data nodes with synchronous replication, each node run by its own
# pg_autoctl keeper (as the postgres user when we are root). Source it (after postgres.sh), then:
#   ha_start    creates and starts the formation; exports STORELEDGER_TEST_HA_URL (the
#               formation's URI as `pg_autoctl show uri` prints it, signed in as postgres) and
#               STORELEDGER_TEST_HA_DIR (where scripts/ha finds it)
#   ha_stop     stops it and removes its files
# The faults the tests inject (a planned failover, a killed primary, a stopped standby) are
# commands of scripts/ha.
#
# The monitor checks each node every 2 s and calls it unhealthy after 10 s (the defaults are
# 5 s and 20 s), so a lost primary is replaced sooner and each test is shorter. Its health
# check's own timeout and retries, and the 30 s it waits for a lost primary to demote itself
# before promoting the standby, stay pg_auto_failover's: shorter ones promoted a standby
# while a busy primary was still alive. A production formation keeps every default
# (docs/high-availability.md).

ha_install_if_missing() {
  command -v pg_autoctl >/dev/null && return 0
  echo "pg_autoctl not found: installing postgresql-15-auto-failover" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q postgresql-15-auto-failover >&2
}

# pg_autoctl with the formation's private configuration and state directories.
ha_ctl() {
  postgres_as_owner env PATH="$(postgres_bin_dir):/usr/bin:/bin" \
    XDG_CONFIG_HOME="$HA_DIR/config" XDG_DATA_HOME="$HA_DIR/share" \
    XDG_RUNTIME_DIR="$HA_DIR/run" pg_autoctl "$@"
}

# Runs a keeper in a session of its own, so that `kill -9 -<group>` ends all of it.
ha_run_keeper() {
  local name=$1
  shift
  # With the default disposition of every signal it stops on: a keeper started by a process
  # that ignores SIGTERM (a server's signal handling) would inherit that and never stop.
  setsid env --default-signal=TERM,INT,HUP,QUIT bash -c \
    "$(declare -f postgres_as_owner postgres_bin_dir ha_ctl); HA_DIR='$HA_DIR'; \
    ha_ctl ${*@Q} >>'$HA_DIR/$name.log' 2>&1" </dev/null >/dev/null 2>&1 &
  echo $! >"$HA_DIR/$name.keeper"
  # Not this shell's job: its end (ha_stop's SIGKILL) is not reported as one.
  disown $! 2>/dev/null || true
}

ha_psql() {
  local port=$1
  shift
  "$(postgres_bin_dir)/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -At "$@"
}

# name state: one line per node ("node1 primary").
ha_states() {
  ha_ctl show state --pgdata "$HA_DIR/monitor" --json 2>/dev/null | python3 -c '
import json, sys
for node in json.load(sys.stdin):
    print(node["nodename"], node["current_group_state"], node["assigned_group_state"])'
}

# Waits until the formation has a primary and a secondary, each as assigned.
ha_wait_healthy() {
  local limit=${1:-180} states
  for _ in $(seq 1 $((limit * 2))); do
    states=$(ha_states || true)
    if echo "$states" | grep -q ' primary primary$' && echo "$states" | grep -q ' secondary secondary$' \
      && [ -n "$(ha_primary_sync_names)" ]; then
      return 0
    fi
    # pg_basebackup waits for a checkpoint; pg_autoctl asks for a spread one.
    for port in $(cat "$HA_DIR/node1.port" "$HA_DIR/node2.port"); do
      ha_psql "$port" -d postgres -c CHECKPOINT >/dev/null 2>&1 || true
    done
    sleep 0.5
  done
  echo "the formation did not become healthy within ${limit} s:" >&2
  echo "$states" >&2
  for log in "$HA_DIR"/*.log; do echo "--- $log" >&2; tail -n 20 "$log" >&2; done
  return 1
}

ha_start() {
  ha_install_if_missing
  HA_DIR=$(mktemp -d /tmp/storeledger-ha.XXXXXX)
  # pg_autoctl keeps its pid files in XDG_RUNTIME_DIR (else in a shared /tmp/pg_autoctl).
  mkdir -m 700 "$HA_DIR/run"
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$HA_DIR"
  local monitor_port
  monitor_port=$(postgres_free_port)
  echo "$monitor_port" >"$HA_DIR/monitor.port"
  ha_ctl create monitor --pgdata "$HA_DIR/monitor" --pgport "$monitor_port" \
    --hostname 127.0.0.1 --auth trust --no-ssl >"$HA_DIR/monitor-create.log" 2>&1 || {
    cat "$HA_DIR/monitor-create.log" >&2
    return 1
  }
  ha_run_keeper monitor run --pgdata "$HA_DIR/monitor"
  for _ in $(seq 1 60); do ha_psql "$monitor_port" -d pg_auto_failover -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
  ha_psql "$monitor_port" -d pg_auto_failover \
    -c "ALTER SYSTEM SET pgautofailover.health_check_period = 2000" \
    -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 10000" \
    -c "SELECT pg_reload_conf()" >/dev/null
  local monitor="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"
  local node port
  for node in node1 node2; do
    port=$(postgres_free_port)
    echo "$port" >"$HA_DIR/$node.port"
    ha_run_keeper "$node" create postgres --pgdata "$HA_DIR/$node" --pgport "$port" \
      --hostname 127.0.0.1 --auth trust --no-ssl --monitor "$monitor" --dbname ledger \
      --name "$node" --run
    # The first node becomes the primary before the second registers.
    if [ "$node" = node1 ]; then
      for _ in $(seq 1 120); do ha_states | grep -q '^node1 single single$' && break; sleep 0.5; done
    fi
  done
  ha_wait_healthy 180
  ha_export
  echo "pg_auto_failover formation: $STORELEDGER_TEST_HA_URL (monitor on 127.0.0.1:$monitor_port, $HA_DIR)"
}

# The formation's URI as pg_autoctl prints it, with the superuser the tests sign in as.
ha_export() {
  local uri
  uri=$(ha_ctl show uri --pgdata "$HA_DIR/monitor" --formation default)
  export STORELEDGER_TEST_HA_URL="${uri/postgres:\/\//postgres://postgres@}"
  export STORELEDGER_TEST_HA_DIR="$HA_DIR"
}

# The formation's state changes as its keepers logged them, oldest first: printed when a
# failover test fails, so the moment a lost row was acknowledged can be set against them.
ha_report() {
  [ -n "${HA_DIR:-}" ] && [ -d "$HA_DIR" ] || return 0
  echo "--- the formation's state changes (keeper logs, last 120) ---"
  grep -hE 'FSM transition|Transition complete|synchronous replication|synchronous_standby_names|demote|promot' \
    "$HA_DIR"/*.log 2>/dev/null | sort | tail -n 120 || true
}

ha_stop() {
  if [ -n "${HA_DIR:-}" ] && [ -d "$HA_DIR" ]; then
    local keeper pid
    for keeper in "$HA_DIR"/*.keeper; do
      [ -f "$keeper" ] && kill -9 -- "-$(cat "$keeper")" 2>/dev/null || true
    done
    for data in "$HA_DIR"/monitor "$HA_DIR"/node1 "$HA_DIR"/node2; do
      if [ -f "$data/postmaster.pid" ]; then
        pid=$(head -1 "$data/postmaster.pid")
        kill -9 "$pid" $(pgrep -P "$pid") 2>/dev/null || true
      fi
    done
    # A pg_autoctl command still running may write into it once more.
    rm -rf "$HA_DIR" 2>/dev/null || { sleep 1; rm -rf "$HA_DIR"; }
  fi
  HA_DIR=""
}

# The primary's synchronous_standby_names: empty while it commits without its standby.
ha_primary_sync_names() {
  local node
  node=$(ha_primary)
  [ -n "$node" ] || return 0
  ha_psql "$(cat "$HA_DIR/$node.port")" -d postgres -c 'SHOW synchronous_standby_names' 2>/dev/null || true
}

# The node whose reported state is primary.
ha_primary() { ha_states | awk '$2 == "primary" { print $1 }' | head -1; }
ha_secondary() { ha_states | awk '$2 == "secondary" { print $1 }' | head -1; }

# Ends a node as a lost machine ends: its keeper and its postgres, with SIGKILL.
ha_kill_node() {
  local node=$1 pid
  kill -9 -- "-$(cat "$HA_DIR/$node.keeper")" 2>/dev/null || true
  if [ -f "$HA_DIR/$node/postmaster.pid" ]; then
    pid=$(head -1 "$HA_DIR/$node/postmaster.pid")
    kill -9 "$pid" $(pgrep -P "$pid") 2>/dev/null || true
  fi
}

# The pid file of a node's keeper (pg_autoctl keeps it under XDG_RUNTIME_DIR, by PGDATA).
ha_keeper_pidfile() { echo "$HA_DIR/run/pg_autoctl$HA_DIR/$1/pg_autoctl.pid"; }

# Stops a node as an operator does (`pg_autoctl stop`: its keeper stops postgres, fast mode,
# and exits); returns once both are down.
ha_stop_node() {
  local node=$1
  ha_ctl stop --pgdata "$HA_DIR/$node" >>"$HA_DIR/faults.log" 2>&1
  for _ in $(seq 1 120); do
    if [ ! -f "$HA_DIR/$node/postmaster.pid" ] && [ ! -f "$(ha_keeper_pidfile "$node")" ]; then
      return 0
    fi
    sleep 0.5
  done
  echo "$node did not stop within 60 s" >&2
  return 1
}

# Waits until a node's last keeper has ended (its pid file gone, or naming a dead process
# after SIGKILL): a keeper started while the last one is still exiting loses its pid file to
# it and quits.
ha_wait_keeper_gone() {
  local pidfile pid
  pidfile=$(ha_keeper_pidfile "$1")
  for _ in $(seq 1 120); do
    [ -f "$pidfile" ] || return 0
    pid=$(head -1 "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 0
    sleep 0.25
  done
}

# Starts a node's keeper again; it rejoins as a standby (pg_rewind when it was the primary).
ha_start_node() {
  local node=$1
  ha_wait_keeper_gone "$node"
  ha_run_keeper "$node" run --pgdata "$HA_DIR/$node"
}
