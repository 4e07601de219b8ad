#!/usr/bin/env bash
# Writes the v1 fixture log: a log written by StoreLedger as released at commit 5515745 (the
# last release whose rows hold Apple's claims as the payload), with the answers that release
# gave. Kept so the upcaster is tested against real old rows, not against rows today's code
# imagines. Run once, from the repository root, with that commit's CLI built:
#   git worktree add /tmp/v1 5515745 && (cd /tmp/v1 && swift build --product storeledger)
#   STORELEDGER=/tmp/v1/.build/debug/storeledger Tests/Fixtures/log-v1/make-fixture.sh
# Running it at a later commit writes that commit's format, which is not what the test wants.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
storeledger=${STORELEDGER:-.build/debug/storeledger}
source scripts/lib/postgres.sh
postgres_start >/dev/null
url=$STORELEDGER_TEST_DATABASE_URL
work=$(mktemp -d)
psql() { "$POSTGRES_BIN/psql" -X -q -At "$url" "$@"; }

"$storeledger" demo --customers 200 --months 12 --seed 11 --queries 0 --database-url "$url" \
  --directory "$work" --json >"$work/demo.json"

key=fixture-key-0123456789abcdef
port=$(postgres_free_port)
"$storeledger" serve --database-url "$url" --bundle-id com.example.app \
  --app-apple-id 1234567890 --environments Sandbox --root-certs "$work/root.der" \
  --catalog "$work/catalog.json" --api-keys "$key" --port "$port" --log-level error &
server=$!
trap 'kill $server 2>/dev/null || true; postgres_stop' EXIT
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.2; done
api() { curl -sf -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }

# Backend commands: debits of accounts that hold gems, and a link of a chain to a second account.
for token in $(psql -c "SELECT DISTINCT s.app_account_token FROM storeledger.account_streams s
    JOIN storeledger.events e USING (stream_id) WHERE e.payload::text LIKE '%gems%'
    ORDER BY 1 LIMIT 3"); do
  api -X POST -H "Idempotency-Key: fixture-$token" -d '{"quantity": 5}' \
    "http://127.0.0.1:$port/v1/accounts/$token/consumables/gems.100/debits" \
    >/dev/null || true
done
# (a chain Apple signed without an appAccountToken, if the simulation made one: only those
# links decide anything)
chain=$(psql -c "SELECT substring(stream_id from '^sub:[^:]+:(.*)$') FROM storeledger.events
  WHERE stream_id LIKE 'sub:%' GROUP BY stream_id
  ORDER BY bool_or(payload::text LIKE '%appAccountToken%'), min(tx_id::text) LIMIT 1")
api -X POST -d "{\"originalTransactionId\": \"$chain\"}" \
  "http://127.0.0.1:$port/v1/accounts/00000000-0000-4000-8000-00000000f1f0/links" >/dev/null

# The rows, in feed order, every column the log holds.
psql -c "SELECT json_build_object('streamId', stream_id, 'streamVersion', stream_version,
    'eventId', event_id, 'idempotencyKey', idempotency_key, 'eventType', event_type,
    'environment', environment,
    'appleSignedAtMicros', (extract(epoch FROM apple_signed_at) * 1000000)::bigint,
    'recordedAtMicros', (extract(epoch FROM recorded_at) * 1000000)::bigint,
    'payload', payload::text, 'rawSigned', raw_signed, 'metadata', metadata::text,
    'prevHash', encode(prev_hash, 'hex'), 'hash', encode(hash, 'hex'))
  FROM storeledger.events ORDER BY tx_id, seq" >"$work/events.jsonl"
psql -c "SELECT app_account_token || ' ' || stream_id FROM storeledger.account_streams" \
  >"$work/account_streams.txt"

# The answers that release gave: every account's entitlements at three instants.
: >"$work/answers.jsonl"
for token in $(psql -c "SELECT DISTINCT app_account_token FROM storeledger.account_streams ORDER BY 1"); do
  for at in 2026-03-01T00:00:00Z 2026-06-15T12:00:00Z 2027-01-01T00:00:00Z; do
    base="http://127.0.0.1:$port/v1/accounts/$token"
    printf '{"account":"%s","at":"%s","entitlements":%s,"subscriptions":%s,"consumables":%s}\n' \
      "$token" "$at" "$(api "$base/entitlements?at=$at")" "$(api "$base/subscriptions?at=$at")" \
      "$(api "$base/consumables?at=$at")" >>"$work/answers.jsonl"
  done
done
# A subset small enough for the repository: whole accounts (every stream of each), chosen to
# hold every kind of row, and the answers of exactly those accounts.
python3 "$here/subset.py" "$work" "$here"
cp "$work/root.der" "$here/root.der"
cp "$work/catalog.json" "$here/catalog.json"
echo "$(wc -l <"$here/events.jsonl") events, $(wc -l <"$here/answers.jsonl") answers"
