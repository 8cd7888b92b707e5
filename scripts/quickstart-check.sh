#!/usr/bin/env bash
# Builds README's quick start as a stranger would and runs its test: installs the starter and the test
# support into the local Maven repository (as the quick start's step 1 does), writes the quick start's
# pom.xml, application.yml and every Java block of package com.example.agents into a new project under
# target/quickstart, and runs `mvn test` there (the test starts its own nats-server through
# @EmbeddedNats). Fails when a block does not compile or the test does not pass. Used by .ci/run.
# Further arguments go to both Maven runs (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "quick start check failed: $*" >&2; exit 1; }

project="$(realpath -m target/quickstart)"
rm -rf "$project"
mkdir -p "$project/blocks"

# Every fenced block of the quick start section, one file each: <n>.<language>
awk -v out="$project/blocks" '
  /^## Quick start/ { inside = 1; next }
  inside && /^## / { exit }
  inside && /^```[a-z]+/ { n++; file = sprintf("%s/%02d.%s", out, n, substr($0, 4)); block = 1; next }
  inside && /^```/ && block { block = 0; close(file); next }
  block { print > file }
' README.md
ls "$project"/blocks/*.xml >/dev/null 2>&1 || fail "README's quick start has no xml block"

pom="$(grep -l '<artifactId>exactly-once-starter</artifactId>' "$project"/blocks/*.xml | head -1)"
[ -n "$pom" ] && grep -q '<modelVersion>' "$pom" || fail "README's quick start shows no whole pom.xml"
cp "$pom" "$project/pom.xml"
yaml="$(grep -l '^exactlyonce:' "$project"/blocks/*.yaml | head -1)"
[ -n "$yaml" ] || fail "README's quick start has no application.yml"
mkdir -p "$project/src/main/resources" "$project/src/main/java/com/example/agents" "$project/src/test/java/com/example/agents"
cp "$yaml" "$project/src/main/resources/application.yml"
sources=0
for block in "$project"/blocks/*.java; do
  grep -q '^package com.example.agents;' "$block" || continue
  name="$(grep -oE '^(public )?(final )?(class|record|interface) [A-Za-z]+' "$block" | awk '{ print $NF }' | head -1)"
  [ -n "$name" ] || fail "a Java block of the quick start declares no type: $block"
  if grep -q '@Test' "$block"; then dir=test; else dir=main; fi
  cp "$block" "$project/src/$dir/java/com/example/agents/$name.java"
  sources=$((sources + 1))
done
[ "$sources" -ge 5 ] || fail "expected the application, listener, task, publisher and test in README, found $sources Java blocks"

echo "==> installing the starter and the test support into the local Maven repository"
./mvnw -B -q install -DskipTests -pl exactly-once-starter,exactly-once-test-support -am "$@"
echo "==> mvn test of README's quick start ($sources Java files) in $project"
./mvnw -B -f "$project/pom.xml" test "$@"
report="$(ls "$project"/target/surefire-reports/TEST-*.xml 2>/dev/null | head -1)"
[ -n "$report" ] || fail "the quick start's test did not run"
grep -q 'tests="1" errors="0" skipped="0" failures="0"' "$report" || fail "the quick start's test did not pass: $report"
echo "==> quick start check passed"
