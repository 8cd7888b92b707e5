#!/usr/bin/env bash
# Runs sample-agent-app in JVM AOT mode and checks it works there: builds it with ahead-of-time processing
# (-Paot, spring-boot:process-aot), checks the jar holds the generated bean definitions and listener proxies
# and the generated hints name the listener methods and payloads, the Lua scripts, the JDBC DDL, the
# dashboard files and the stored and answered JSON types,
# starts a nats-server of its own on free ports in a temp dir, runs the app with -Dspring.aot.enabled=true,
# publishes a task twice and checks it ran exactly once (and its follow-up deploy once), the duplicate
# publish suppressed, a campaign (child tasks) completed with its three posts deployed once,
# the dashboard page and the operations endpoint answered. A JVM in AOT mode does not
# enforce reflection or resource hints (only a native image does, and none is built here): the hints are
# checked as generated, and by RuntimeHintsTests. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

APP=sample-agent-app
JAR="$APP/target/$APP-0.1.0-SNAPSHOT.jar"
# shellcheck source=ports.sh
source scripts/ports.sh
fail() {
  echo "aot check failed: $*" >&2
  exit 1
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/exactlyonce-aot.XXXXXX")"
NATS_PORT="$(free_port)"
SERVER_PORT="$(free_port)"
NATS_PID=""
APP_PID=""
PASSED=""
stop() {
  [ -z "$APP_PID" ] || { kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null || true; }
  [ -z "$NATS_PID" ] || { kill "$NATS_PID" 2>/dev/null && wait "$NATS_PID" 2>/dev/null || true; }
  # kept when the check failed: its messages point at the app's log there
  [ -z "$PASSED" ] || rm -rf "$WORK"
}
trap stop EXIT

echo "==> building $APP with ahead-of-time processing (-Paot)"
# generated classes of an earlier run must not hide a failure of this one
rm -rf "$APP/target/spring-aot" "$APP/target/classes" "$APP"/target/"$APP"-*.jar*
./mvnw -B -q -DskipTests -Paot package -pl "$APP" -am

echo "==> checking what process-aot generated"
listing="$(unzip -l "$JAR")"
[[ "$listing" == *"BOOT-INF/classes/dev/exactlyonce/sample/SampleAgentApplication__BeanDefinitions.class"* ]] \
  || fail "no SampleAgentApplication__BeanDefinitions in $JAR: process-aot did not run"
[[ "$listing" == *"BOOT-INF/classes/dev/exactlyonce/sample/MarketingAgent\$\$SpringCGLIB\$\$0.class"* ]] \
  || fail "no build-time proxy class of the listener bean MarketingAgent in $JAR"
METADATA="$APP/target/spring-aot/main/resources/META-INF/native-image/dev.exactlyonce/$APP/reachability-metadata.json"
[ -s "$METADATA" ] || fail "process-aot wrote no $METADATA"
hints="$(sed 's|\\/|/|g' "$METADATA")"
hinted() { [[ "$hints" == *"$1"* ]] || fail "the generated hints ($METADATA) miss $2"; }
listener_hinted() {
  local entry
  entry="$(grep -F -A10 "\"type\": \"dev.exactlyonce.sample.$1\"," "$METADATA" || true)"
  [[ "$entry" == *'"name": "handle"'* && "$entry" == *"\"dev.exactlyonce.sample.$2\""* ]] \
    || fail "the generated hints ($METADATA) do not register $1.handle($2, ...) for invocation"
  hinted "\"type\": \"dev.exactlyonce.sample.$2\"" "the payload type $2 of $1.handle"
}
listener_hinted MarketingAgent TaskAssignment
listener_hinted DevOpsAgent DeployTask
listener_hinted CeoAgent Campaign
hinted '"type": "dev.exactlyonce.sample.Approval"' "the payload type Approval of the marketing agent's wait"
hinted '"type": "dev.exactlyonce.store.IdempotencyRecord"' "the stored record"
hinted '"type": "dev.exactlyonce.operations.TaskView"' "an operations endpoint answer"
hinted '"glob": "dev/exactlyonce/store/redis/*.lua"' "the Redis Lua scripts"
hinted '"glob": "dev/exactlyonce/store/jdbc/schema-*.sql"' "the JDBC DDL"
hinted '"glob": "dev/exactlyonce/dashboard/*"' "the dashboard files"

echo "==> starting nats-server with JetStream on 127.0.0.1:$NATS_PORT (data in $WORK/nats)"
NATS_BIN="${NATS_SERVER_BIN:-$(command -v nats-server || echo /usr/sbin/nats-server)}"
"$NATS_BIN" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$WORK/nats" > "$WORK/nats-server.log" 2>&1 &
NATS_PID=$!
for _ in $(seq 1 50); do listening "$NATS_PORT" && break; sleep 0.2; done
listening "$NATS_PORT" || fail "nats-server did not start; see $WORK/nats-server.log"

echo "==> starting $APP in AOT mode on port $SERVER_PORT (log in $WORK/app.log)"
java -Dspring.aot.enabled=true -jar "$JAR" --server.port="$SERVER_PORT" \
  --exactlyonce.nats.servers="nats://127.0.0.1:$NATS_PORT" \
  --sample.output-dir="$WORK/out" --sample.work-duration=1s --sample.approval-required=false > "$WORK/app.log" 2>&1 &
APP_PID=$!
for _ in $(seq 1 120); do
  curl -fs "http://localhost:$SERVER_PORT/posts" >/dev/null 2>&1 && break
  kill -0 "$APP_PID" 2>/dev/null || { tail -40 "$WORK/app.log" >&2; fail "$APP exited in AOT mode (above: the end of its log)"; }
  sleep 0.5
done
curl -fs "http://localhost:$SERVER_PORT/posts" >/dev/null || fail "$APP did not answer within 60 s; see $WORK/app.log"
grep -q 'Starting AOT-processed SampleAgentApplication' "$WORK/app.log" \
  || fail "the log does not say the app started AOT-processed; see $WORK/app.log"

TASK="aot-$(date +%s)"
assign() {
  curl -fs -X POST "http://localhost:$SERVER_PORT/tasks" -H 'Content-Type: application/json' \
    -d "{\"taskId\":\"$TASK\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{\"topic\":\"aot\"}}"
}
echo "==> publishing task $TASK twice"
first="$(assign)" || fail "POST /tasks failed; see $WORK/app.log"
second="$(assign)" || fail "the second POST /tasks failed; see $WORK/app.log"
echo "    $first"
echo "    $second"
case "$second" in *'"duplicate":true'*) ;; *) fail "the second publish of $TASK was not suppressed as a duplicate";; esac

count() { if [ -f "$2" ]; then grep -c "^$1 " "$2" || true; else echo 0; fi; }
for _ in $(seq 1 60); do
  [ "$(count "$TASK" "$WORK/out/deploys.log")" -ge 1 ] && break
  kill -0 "$APP_PID" 2>/dev/null || fail "$APP exited while working; see $WORK/app.log"
  sleep 1
done
sleep 2 # a second execution, if any, would be under way by now
executions="$(count "$TASK" "$WORK/out/ledger.log")"
deploys="$(count "$TASK" "$WORK/out/deploys.log")"
echo "    executions of $TASK: $executions, deploys: $deploys"
[ "$executions" = 1 ] || fail "task $TASK ran $executions times (expected once); see $WORK/app.log"
[ "$deploys" = 1 ] || fail "task $TASK was deployed $deploys times (expected once); see $WORK/app.log"

CAMPAIGN="aot-campaign-$(date +%s)"
echo "==> running campaign $CAMPAIGN (three posts and a deploy as child tasks)"
curl -fs -X POST "http://localhost:$SERVER_PORT/campaigns" -H 'Content-Type: application/json' \
  -d "{\"campaignId\":\"$CAMPAIGN\",\"topic\":\"aot\"}" >/dev/null || fail "POST /campaigns failed; see $WORK/app.log"
campaign=""
for _ in $(seq 1 60); do
  campaign="$(curl -fs "http://localhost:$SERVER_PORT/actuator/exactlyonceops/ceo-campaign-worker/tasks?key=$CAMPAIGN" || true)"
  [[ "$campaign" == *"\"key\":\"$CAMPAIGN\",\"status\":\"COMPLETED\""* ]] && break # its own status, not a child's
  sleep 1
done
[[ "$campaign" == *'"resultSummary":"deployed 3 of 3 posts ('* ]] \
  || fail "campaign $CAMPAIGN did not complete with its three posts deployed: $campaign"
echo "    campaign $CAMPAIGN completed, deploys: $(count "$CAMPAIGN" "$WORK/out/deploys.log")"
[ "$(count "$CAMPAIGN" "$WORK/out/deploys.log")" = 1 ] || fail "campaign $CAMPAIGN was not deployed once; see $WORK/app.log"

page="$(curl -fs "http://localhost:$SERVER_PORT/exactlyonce/index.html" || true)"
[[ "$page" == *"<html"* ]] || fail "the dashboard page is not served in AOT mode"
task="$(curl -fs "http://localhost:$SERVER_PORT/actuator/exactlyonceops/marketing-task-worker/tasks?key=$TASK" || true)"
[[ "$task" == *'"status":"COMPLETED"'* ]] || fail "the operations endpoint does not show $TASK completed: $task"
errors="$(grep ' ERROR ' "$WORK/app.log" || true)"
[ -z "$errors" ] || { echo "$errors" | head -5 >&2; fail "$APP logged errors; see $WORK/app.log"; }
PASSED=1
echo "==> aot check passed"
