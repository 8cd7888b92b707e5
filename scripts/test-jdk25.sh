#!/usr/bin/env bash
# Runs integration tests of exactly-once-autoconfigure on JDK 25 with spring.threads.virtual.enabled=true
# (a system property of the test JVM, so every test application's listeners run on virtual threads);
# Maven itself and the compile stay on the default JDK (release 17). Fails when no JDK 25 is installed
# under /usr/lib/jvm (JDK25_JAVA=<path to bin/java> points elsewhere) or when the tests did not run on it.
#   scripts/test-jdk25.sh                    the virtual-thread suites (VirtualThread*) and the shutdown and pipelined suites
#   scripts/test-jdk25.sh '*IntegrationTests'   these classes (failsafe's it.test)
# Further arguments go to Maven, e.g. -o.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "scripts/test-jdk25.sh: $*" >&2; exit 1; }

java="${JDK25_JAVA:-}"
if [ -z "$java" ]; then
  for candidate in /usr/lib/jvm/*25*/bin/java; do
    [ -x "$candidate" ] && java="$candidate" && break
  done
fi
[ -n "$java" ] && [ -x "$java" ] || fail "no JDK 25 found (looked for /usr/lib/jvm/*25*/bin/java; set JDK25_JAVA)"
version="$("$java" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')"
[ "$version" = 25 ] || fail "$java is Java $version, not 25"
echo "scripts/test-jdk25.sh: integration tests on $java (Java $version), spring.threads.virtual.enabled=true"

tests='VirtualThread*,*Shutdown*,PipelinedCompletion*'
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  tests="$1"
  shift
fi
reports=exactly-once-autoconfigure/target/failsafe-reports
rm -rf "$reports"
./mvnw -B verify -pl exactly-once-autoconfigure -am -Dtest=None -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfailsafe.failIfNoSpecifiedTests=false "-Dit.test=$tests" "-Djvm=$java" \
  -Dtest.require-virtual-threads=true -Dspring.threads.virtual.enabled=true "$@"

# failsafe records the test JVM's properties: every class must have run on Java 25
shopt -s nullglob
ran=("$reports"/TEST-*.xml)
[ ${#ran[@]} -gt 0 ] || fail "no integration test ran for it.test=$tests"
for report in "${ran[@]}"; do
  grep -q 'name="java.specification.version" value="25"' "$report" || fail "$report did not run on Java 25"
done
echo "scripts/test-jdk25.sh: ${#ran[@]} test class(es) ran on Java 25"
