#!/usr/bin/env bash
# Runs every test of the project: unit and context-runner tests (*Tests) and integration tests
# against real servers (*IntegrationTests). Installs what the tests need when it is missing
# (Debian packages nats-server, redis-server, postgresql, mariadb-server, chromium, nodejs/npm and
# faketime for the fault suite's skewed-clock row, installed without starting their system services;
# npm's playwright-core for the dashboard's browser test); the tests start their own server
# processes on free ports with temporary directories and never touch services already running here.
# The tests run on the newest nats-server Debian ships (sid, fetched into target/nats-servers by
# scripts/nats-servers.sh, nothing installed), the release line users run; NATS_SERVER_BIN=<path> runs
# them on another one (e.g. /usr/sbin/nats-server, Debian bookworm's 2.9.10, as .ci/run's compatibility
# phase does).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x "${POSTGRES_BIN_DIR:-/usr/lib/postgresql/15/bin}/initdb" ] || missing+=(postgresql)
[ -x "${MARIADB_BIN_DIR:-/usr/sbin}/mariadbd" ] || missing+=(mariadb-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ -n "${FAKETIME_LIB:-}" ] || compgen -G "/usr/lib/*/faketime/libfaketimeMT.so.1" >/dev/null || missing+=(faketime)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing test prerequisites: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  # policy-rc.d answering 101 keeps the packages' system services from starting
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod +x "$policy"
    trap '$SUDO rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

FIRESTORE_EMULATOR=/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator
if [ ! -x "$FIRESTORE_EMULATOR" ]; then
  echo "Google's Firestore emulator is missing at $FIRESTORE_EMULATOR (preinstalled on this project's machines)" >&2
  exit 1
fi

BROWSER_TEST=sample-agent-app/src/test/browser
if [ ! -d "$BROWSER_TEST/node_modules/playwright-core" ]; then
  echo "Installing playwright-core (npm) for the dashboard's browser test"
  (cd "$BROWSER_TEST" && npm ci --no-audit --no-fund)
fi

if [ -z "${NATS_SERVER_BIN:-}" ]; then
  read -r _ version NATS_SERVER_BIN <<< "$(scripts/nats-servers.sh sid)" \
    || { echo "scripts/test.sh: could not fetch the newest nats-server (above); to run the tests on the installed one: NATS_SERVER_BIN=/usr/sbin/nats-server scripts/test.sh" >&2; exit 1; }
  export NATS_SERVER_BIN
fi
echo "scripts/test.sh: tests run on nats-server $("$NATS_SERVER_BIN" --version | awk '{ print $2 }') ($NATS_SERVER_BIN)"

started=$(date +%s)
./mvnw -B verify "$@"
echo "scripts/test.sh: all tests passed in $(( $(date +%s) - started )) s"
