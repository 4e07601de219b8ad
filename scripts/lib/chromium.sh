# Headless Chromium for the console's browser tests, from the distribution's
# packages when it is missing, as PostgreSQL is. Exports STORELEDGER_CHROMIUM.
#   chromium_ensure   finds or installs it; without it the browser tests fail under CI=true

chromium_find() {
  for candidate in "${STORELEDGER_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser \
    /usr/bin/google-chrome; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

chromium_ensure() {
  if ! chromium_find >/dev/null; then
    echo "Chromium not found: installing the chromium package" >&2
    local sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium >&2
  fi
  STORELEDGER_CHROMIUM="$(chromium_find)"
  export STORELEDGER_CHROMIUM
  echo "Chromium: $("$STORELEDGER_CHROMIUM" --version 2>/dev/null | head -1)" >&2
}
