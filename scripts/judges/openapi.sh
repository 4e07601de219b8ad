#!/usr/bin/env bash
# schemathesis over every operation of the served /openapi.json, with every check and a
# stateful phase, against `storeledger serve` on a new database (and a simulated App Store
# for the write side). Usage: openapi.sh BINARY ADMIN_DATABASE_URL PYTHON [schemathesis args]
set -euo pipefail
binary="$1"; admin="$2"; python="$3"; shift 3
python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"
here="$(cd "$(dirname "$0")" && pwd)"
psql_bin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}/psql"
[ -x "$psql_bin" ] || psql_bin="psql"
export STORELEDGER_JUDGE_PSQL="$psql_bin"
work=$(mktemp -d)
db="judge_$$"
"$psql_bin" "$admin" -qAtc "CREATE DATABASE $db" >/dev/null
url="${admin%/*}/$db"
"$binary" migrate --database-url "$url" >/dev/null 2>&1
port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
api=$(port); web=$(port)
"$binary" simulate --customers 20 --months 2 --seed 5 --port "$api" --day-seconds 0.001 \
  --out "$work/sim" --webhook "http://127.0.0.1:$web/v1/notifications/appstore" >"$work/sim.log" 2>&1 &
sim=$!
for _ in $(seq 1 300); do [ -s "$work/sim/api-key.p8" ] && break; sleep 0.1; done
# The server signs checkpoints every second, so their routes answer what they publish.
# schemathesis presents a wrong key to every operation (its ignored_auth check), hundreds in a
# minute from one address: the server would lock that address (429 address_locked), as it
# should a guesser, and leave the rest of the contract untested. The judge's server takes
# that many; the lock itself is proven by AuthenticationThrottleTests.
"$binary" checkpoint new-key --out "$work/checkpoint-key.pem" >/dev/null
"$binary" serve --database-url "$url" --bundle-id com.example.app --environments Sandbox \
  --root-certs "$work/sim/root.der" --api-keys judge-key-0123456789 --port "$web" \
  --checkpoint-dir "$work/checkpoints" --checkpoint-key "$work/checkpoint-key.pem" \
  --checkpoint-interval 1 --failed-keys-per-address 1000000 \
  --key-id SIM5 --issuer-id 5f6e7d8c-0000-4000-8000-000000000005 --p8 "$work/sim/api-key.p8" \
  --api-url "http://127.0.0.1:$api" --log-level error >"$work/serve.log" 2>&1 &
srv=$!
cleanup() { kill "$sim" "$srv" 2>/dev/null || true; wait 2>/dev/null || true
  "$psql_bin" "$admin" -qAtc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
up=""
for _ in $(seq 1 300); do
  if curl -sf "http://127.0.0.1:$web/openapi.json" >/dev/null; then up=1; break; fi
  sleep 0.1
done
if [ -z "$up" ]; then echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; fi
# A named key of each scope, as operators hand them out.
declare -A scoped
for scope in read write console admin; do
  scoped[$scope]=$("$binary" keys create --name "judge-$scope" --scopes "$scope" \
    --database-url "$url" 2>/dev/null)
done
status=0
# schemathesis keeps a cache in its working directory: the run's own, not the repository.
cd "$work"
run_schemathesis() { # KEY SEED EXAMPLES [args]
  local key="$1" seed="$2" examples="$3"; shift 3
  PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 STORELEDGER_JUDGE_DATABASE_URL="$url" \
    "$(dirname "$python")/schemathesis" --config-file "$here/schemathesis.toml" run "http://127.0.0.1:$web/openapi.json" \
    -H "Authorization: Bearer $key" --checks all --workers 1 \
    --max-examples "$examples" --seed "$seed" "$@"
}
# Every scope: a refused request must leave the log as it was.
echo "=== key with every scope ==="
SCHEMATHESIS_HOOKS=refusals_change_nothing \
  run_schemathesis judge-key-0123456789 1 "${JUDGE_EXAMPLES:-25}" "$@" || status=$?
# A key of each scope, two runs at once (two processes: schemathesis's own workers are
# threads, and CPython 3.11's parser is not safe in threads, which hypothesis calls): every
# answer a key without the scope gets (403) is documented, and two requests in flight never
# break what one alone keeps. The log is not counted here: with two runs a read that asks
# Apple (an order lookup stores what it learns) lands while the other run's refusal is
# being checked; refusals under each scope writing nothing is ScopedKeyTests' point.
for scope in read console write admin; do
  echo "=== key with scope $scope only, two runs at once ==="
  run_schemathesis "${scoped[$scope]}" 2 "${JUDGE_SCOPE_EXAMPLES:-6}" "$@" > "$work/$scope-a.log" 2>&1 &
  first=$!
  run_schemathesis "${scoped[$scope]}" 3 "${JUDGE_SCOPE_EXAMPLES:-6}" "$@" > "$work/$scope-b.log" 2>&1 &
  second=$!
  for run in "$first:a" "$second:b"; do
    if ! wait "${run%%:*}"; then
      status=1
      cat "$work/$scope-${run##*:}.log"
    else
      tail -n 3 "$work/$scope-${run##*:}.log"
    fi
  done
done
exit "$status"
