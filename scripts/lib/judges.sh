# Judges we did not write, pinned: Apple's App Store Server Library for Python and
# schemathesis, in a virtual environment under the build folder (installed from PyPI once).
#   judges_ensure      creates or reuses it; exports JUDGES_PYTHON. Under CI=true a judge that
#                      cannot be installed fails the run; elsewhere it is said and skipped.
#   judge_apple BIN    Apple's verifier (strict) and API client against `BIN simulate`.
#   judge_openapi BIN  schemathesis over `BIN serve`'s /openapi.json, every check, stateful
#                      too; a refused request must leave the log unchanged.

JUDGES_PINS="app-store-server-library==3.1.2 schemathesis==4.32.5"

judges_ensure() {
  local venv=".build/judges"
  local stamp="$venv/pins"
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$JUDGES_PINS" ]; then
    echo "judges: installing $JUDGES_PINS into $venv" >&2
    rm -rf "$venv"
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q $JUDGES_PINS >&2; }; then
      rm -rf "$venv"
      if [ "${CI:-}" = "true" ]; then
        echo "judges: could not be installed (PyPI unreachable?); CI needs them" >&2
        return 1
      fi
      echo "judges: not installed; skipping them (CI=true makes this a failure)" >&2
      JUDGES_PYTHON=""
      export JUDGES_PYTHON
      return 0
    fi
    echo "$JUDGES_PINS" > "$stamp"
  fi
  JUDGES_PYTHON="$venv/bin/python"
  export JUDGES_PYTHON
}

judge_apple() {
  local binary="$1"
  local work
  work=$(mktemp -d)
  local status=0
  timeout --kill-after=10 600 "$JUDGES_PYTHON" scripts/judges/apple_library.py "$binary" "$work" \
    --customers 80 --months 12 || status=$?
  rm -rf "$work"
  return "$status"
}

judge_openapi() {
  local binary="$1"
  # A hang's limit, not a target: the five runs take 600-700 s on an idle 2-core machine and
  # past 900 s on a busy one (a full-scope run took 572 s beside another test run).
  timeout --kill-after=10 1500 scripts/judges/openapi.sh "$binary" \
    "$STORELEDGER_TEST_DATABASE_URL" "$JUDGES_PYTHON"
}
