# Throwaway PostgreSQL clusters for tests and benchmarks. Source it, then:
#   postgres_start      starts a private cluster on loopback and exports STORELEDGER_TEST_DATABASE_URL;
#                       it offers TLS with a certificate for "localhost" from a CA of its own
#                       (STORELEDGER_TEST_TLS_ROOT; another CA that did not sign it is
#                       STORELEDGER_TEST_TLS_OTHER_ROOT). Clients choose: plain connections work too.
#   postgres_stop       stops it and removes its files (also installed as an EXIT/INT/TERM trap)
#   postgres_start_replica
#                       adds a streaming replica of it (pg_basebackup -R) on another port and
#                       exports STORELEDGER_TEST_REPLICA_URL, and, for tests that stop and start
#                       it, STORELEDGER_TEST_REPLICA_DATA and STORELEDGER_TEST_POSTGRES_BIN
# PostgreSQL refuses to run as root, so when we are root the cluster runs as the postgres user.

postgres_bin_dir() {
  local dir
  for dir in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

postgres_install_if_missing() {
  postgres_bin_dir >/dev/null && return 0
  echo "PostgreSQL server binaries not found: installing the postgresql package" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q postgresql >&2
}

postgres_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

postgres_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A CA, a server certificate it signed for the name "localhost" (not for 127.0.0.1, so
# verify-full through the address fails as it must), and a CA that signed nothing.
postgres_tls_files() {
  local dir=$1
  mkdir -p "$dir"
  (
    cd "$dir"
    for ca in ca other-ca; do
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3 \
        -subj "/CN=StoreLedger test $ca" -keyout "$ca.key" -out "$ca.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    done
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
      -keyout server.key -out server.csr
    printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
      >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3 \
      -extfile server.ext -out server.pem
    chmod 600 server.key
  ) >"$dir/openssl.log" 2>&1 || {
    cat "$dir/openssl.log" >&2
    return 1
  }
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  chmod 644 "$dir/ca.pem" "$dir/other-ca.pem"
}

postgres_start() {
  postgres_install_if_missing
  local bin
  bin=$(postgres_bin_dir)
  POSTGRES_DIR=$(mktemp -d /tmp/storeledger-pg.XXXXXX)
  trap postgres_stop EXIT
  trap 'postgres_stop; exit 130' INT
  trap 'postgres_stop; exit 143' TERM
  [ "$(id -u)" -eq 0 ] && chown postgres: "$POSTGRES_DIR"
  local port
  port=$(postgres_free_port)
  postgres_tls_files "$POSTGRES_DIR/tls" || return 1
  postgres_as_owner "$bin/initdb" -D "$POSTGRES_DIR/data" -U postgres --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 >"$POSTGRES_DIR/initdb.log" 2>&1 || {
    cat "$POSTGRES_DIR/initdb.log" >&2
    return 1
  }
  # One role must give a password, as production roles do: the tests of a wrong password
  # (DatabaseProblemTests) sign in as it. Every other role is trusted on loopback.
  postgres_as_owner sh -c "{ echo 'host all storeledger_password_test 127.0.0.1/32 scram-sha-256'; cat '$POSTGRES_DIR/data/pg_hba.conf'; } > '$POSTGRES_DIR/data/pg_hba.new' && mv '$POSTGRES_DIR/data/pg_hba.new' '$POSTGRES_DIR/data/pg_hba.conf'"
  postgres_as_owner "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $POSTGRES_DIR -c max_connections=300 -c ssl=on -c ssl_cert_file=$POSTGRES_DIR/tls/server.pem -c ssl_key_file=$POSTGRES_DIR/tls/server.key ${POSTGRES_EXTRA_OPTIONS:-}" \
    start >/dev/null || {
    cat "$POSTGRES_DIR/server.log" >&2
    return 1
  }
  POSTGRES_BIN="$bin"
  export STORELEDGER_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  export STORELEDGER_TEST_TLS_ROOT="$POSTGRES_DIR/tls/ca.pem"
  export STORELEDGER_TEST_TLS_OTHER_ROOT="$POSTGRES_DIR/tls/other-ca.pem"
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($POSTGRES_DIR)"
}

postgres_start_replica() {
  local port primary_port
  port=$(postgres_free_port)
  primary_port=${STORELEDGER_TEST_DATABASE_URL##*:}
  primary_port=${primary_port%%/*}
  postgres_as_owner "$POSTGRES_BIN/pg_basebackup" -D "$POSTGRES_DIR/replica" -R -X stream \
    -h 127.0.0.1 -p "$primary_port" -U postgres >"$POSTGRES_DIR/basebackup.log" 2>&1 || {
    cat "$POSTGRES_DIR/basebackup.log" >&2
    return 1
  }
  # The replica's own port and socket directory; it follows the primary (primary_conninfo,
  # standby.signal written by -R) and answers read-only queries meanwhile (hot_standby).
  cat >>"$POSTGRES_DIR/replica/postgresql.auto.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$POSTGRES_DIR'
hot_standby = on
max_connections = 300
CONF
  postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/replica" \
    -l "$POSTGRES_DIR/replica.log" -w start >/dev/null || {
    cat "$POSTGRES_DIR/replica.log" >&2
    return 1
  }
  export STORELEDGER_TEST_REPLICA_URL="postgres://postgres@127.0.0.1:$port/postgres"
  export STORELEDGER_TEST_REPLICA_DATA="$POSTGRES_DIR/replica"
  export STORELEDGER_TEST_POSTGRES_BIN="$POSTGRES_BIN"
  echo "PostgreSQL streaming replica on 127.0.0.1:$port"
}

# A second cluster whose data directory is a 96 MB tmpfs (its WAL on the ordinary disk, so a
# full disk refuses table writes instead of stopping the server): the full-disk tests fill it.
# Needs root (or sudo without a password) to mount; without it the variable stays unset.
postgres_start_small_disk() {
  local sudo="" port dir="$POSTGRES_DIR/small"
  [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  mkdir -p "$dir/data" "$dir/wal"
  if ! $sudo mount -t tmpfs -o size=96m,mode=0700 storeledger-small "$dir/data"; then
    echo "no small disk for the full-disk tests: mounting a tmpfs needs root" >&2
    return 1
  fi
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  port=$(postgres_free_port)
  postgres_as_owner "$POSTGRES_BIN/initdb" -D "$dir/data" -X "$dir/wal" -U postgres \
    --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $POSTGRES_DIR -c max_connections=50" \
    start >/dev/null || {
    cat "$dir/server.log" >&2
    return 1
  }
  export STORELEDGER_TEST_SMALL_DISK_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "PostgreSQL on a 96 MB disk on 127.0.0.1:$port"
}

postgres_stop() {
  if [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR/small/data" ]; then
    postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/small/data" -m immediate -w stop \
      >/dev/null 2>&1 || true
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
    $sudo umount "$POSTGRES_DIR/small/data" 2>/dev/null || true
  fi
  if [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR" ]; then
    if [ -d "$POSTGRES_DIR/replica" ]; then
      postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/replica" -m immediate -w stop \
        >/dev/null 2>&1 || true
    fi
    postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate -w stop \
      >/dev/null 2>&1 || true
    rm -rf "$POSTGRES_DIR"
  fi
  POSTGRES_DIR=""
}
