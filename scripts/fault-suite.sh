#!/usr/bin/env bash
# Runs the fault-injection suite (docs/fault-injection.md) outside Maven's test phase and prints its matrix.
#   scripts/fault-suite.sh           short version (what ./mvnw verify runs as FaultInjectionIntegrationTests)
#   scripts/fault-suite.sh --long    thousands of tasks, >= 300 injections per row; writes its table to
#                                    docs/fault-injection.md (takes a few hours on 2 cores)
# More options, passed to dev.exactlyonce.faults.FaultSuite: --rows=KILL_HANDLED_RETRY,NATS_RESTART
# --pipelined (consumers with exactlyonce.listener.pipelined)
# --injections=N --tasks=N --store=nats-kv|redis|firestore|jdbc --work-dir=DIR --report=FILE. Needs Java 17,
# nats-server ($NATS_SERVER_BIN, /usr/sbin/nats-server or on the PATH), redis-server, Google's Firestore
# emulator, iproute2 and root for the partition rows, libfaketime ($FAKETIME_LIB, else Debian's faketime
# package, installed here when missing), and for --store=jdbc PostgreSQL's binaries ($POSTGRES_BIN_DIR or
# /usr/lib/postgresql/15/bin: apt-get install postgresql; its service need not run); every process runs
# on free ports.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ] && [ -z "${NATS_SERVER_BIN:-}" ]; then
  echo "nats-server is missing: apt-get install nats-server (or set NATS_SERVER_BIN)" >&2
  exit 1
fi

# The CLOCK_AHEAD row preloads libfaketime into one consumer JVM (Debian package faketime).
if [ -z "${FAKETIME_LIB:-}" ] && ! compgen -G "/usr/lib/*/faketime/libfaketimeMT.so.1" >/dev/null; then
  echo "Installing faketime (libfaketime, for the skewed-clock row)"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq faketime
fi

case " $* " in
  *" --store=jdbc "*)
    if [ ! -x "${POSTGRES_BIN_DIR:-/usr/lib/postgresql/15/bin}/postgres" ]; then
      echo "PostgreSQL is missing: apt-get install postgresql (or set POSTGRES_BIN_DIR)" >&2
      exit 1
    fi ;;
esac

echo "==> building sample-agent-app and the fault-injection driver"
# A jar left from an earlier build is not repackaged when only the starter changed (the jar plugin
# finds the sample's own classes up to date, and Boot's repackage then keeps the old libraries)
rm -f sample-agent-app/target/sample-agent-app-*.jar sample-agent-app/target/sample-agent-app-*.jar.original
./mvnw -B -q -DskipTests package -pl exactly-once-fault-injection -am

args=("$@")
for arg in "$@"; do
  if [ "$arg" = "--long" ]; then
    case " $* " in *" --report="*) ;; *) args+=("--report=docs/fault-injection.md") ;; esac
  fi
done

# The partition rows put a consumer JVM in a network namespace named eofaults-<run>-<n>: whatever
# way this run ends, delete the namespaces it made (and end the processes it left in them).
export FAULTS_RUN_ID="$$"
remove_namespaces() {
  command -v ip >/dev/null 2>&1 || return 0
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^eofaults-$FAULTS_RUN_ID-" || true); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
}
trap remove_namespaces EXIT

MODULE=exactly-once-fault-injection
java -cp "$MODULE/target/classes:$(cat "$MODULE/target/classpath.txt")" \
  -Dfaults.sample-jar="$PWD/sample-agent-app/target/sample-agent-app-0.1.0-SNAPSHOT.jar" \
  dev.exactlyonce.faults.FaultSuite --work-dir="$MODULE/target/fault-injection" "${args[@]}"
