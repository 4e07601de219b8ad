"""A schemathesis check: a request the server refuses (4xx or 5xx) leaves the log as it was.

Loaded with SCHEMATHESIS_HOOKS=refusals_change_nothing (this folder on PYTHONPATH) and
STORELEDGER_JUDGE_DATABASE_URL naming the served database. Counts storeledger.events before
each call and after each refused one.

Rows the webhook stored are not counted: the simulated App Store delivers what earlier calls
made (a TEST notification, extension results, refund decisions) on its own schedule, so they
may land while any request runs. Nor are relay attempts: a relay target an earlier call added is
sent notifications, and each attempt recorded, on the relayer's own schedule. What schemathesis sends to the webhook never verifies (it
cannot sign as Apple), so no row of the webhook's can come from a request being checked."""
import os
import subprocess

import schemathesis

URL = os.environ.get("STORELEDGER_JUDGE_DATABASE_URL", "")
PSQL = os.environ.get("STORELEDGER_JUDGE_PSQL", "psql")
_before = {}


def _count():
    out = subprocess.run(
        [PSQL, URL, "-Atc",
         "SELECT count(*) FROM storeledger.events WHERE metadata->>'source' IS DISTINCT FROM 'webhook'"
         " AND event_type <> 'ledger.relay_attempted.v1'"],
        capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


@schemathesis.hook
def before_call(context, case, kwargs):
    _before[id(case)] = _count()


@schemathesis.check
def refusals_change_nothing(ctx, response, case):
    before = _before.pop(id(case), None)
    if before is None or response.status_code < 400:
        return None
    after = _count()
    if after != before:
        raise AssertionError(
            f"a refused request ({response.status_code}) changed the log: {before} -> {after} events")
    return None
