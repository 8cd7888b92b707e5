#!/usr/bin/env bash
# Starts the demo: starts its own nats-server with JetStream on a free port of localhost (NATS_PORT
# picks one; installs Debian's nats-server if missing, and stops it at the end) unless NATS_URL names
# a server to use instead, builds, runs sample-agent-app in its demo profile (writes of the actuator
# endpoints allowed, on the loopback interface only), assigns two tasks (one of them published
# twice), lets their drafts wait for approval (durable waits: no worker held), approves one and
# rejects the other through the operations endpoint, then runs a campaign (the CEO agent starts three
# posts as child tasks, waits for them, then deploys them as one more child: approve its three drafts
# and it completes), and prints what happened. KEEP_RUNNING=1 leaves
# the app (and the nats-server it started) running afterwards; SERVER_PORT picks the app's HTTP port (8080).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=ports.sh
source scripts/ports.sh

PORT="${SERVER_PORT:-8080}"
DEMO_HOME="${DEMO_HOME:-$PWD/target/demo}"
mkdir -p "$DEMO_HOME"

NATS_PID=""
if [ -n "${NATS_URL:-}" ]; then
  echo "==> using the nats-server at $NATS_URL (NATS_URL); the demo creates its streams there"
else
  if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
    echo "==> installing nats-server (Debian package)"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nats-server
  fi
  NATS_BIN="$(command -v nats-server || echo /usr/sbin/nats-server)"
  NATS_PORT="${NATS_PORT:-$(free_port)}"
  listening "$NATS_PORT" && { echo "port $NATS_PORT (NATS_PORT) is taken: leave NATS_PORT unset for a free one, or set NATS_URL to use that server" >&2; exit 1; }
  NATS_URL="nats://127.0.0.1:$NATS_PORT"
  echo "==> starting its own nats-server with JetStream on localhost:$NATS_PORT (data in $DEMO_HOME/nats; NATS_URL=nats://host:port uses another server instead)"
  nohup "$NATS_BIN" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$DEMO_HOME/nats" > "$DEMO_HOME/nats-server.log" 2>&1 &
  NATS_PID=$!
  for _ in $(seq 1 50); do listening "$NATS_PORT" && break; sleep 0.2; done
  listening "$NATS_PORT" || { echo "nats-server did not start; see $DEMO_HOME/nats-server.log" >&2; exit 1; }
fi

echo "==> building sample-agent-app"
# a jar left from an earlier build is not repackaged when only the starter changed: start from none
rm -f sample-agent-app/target/sample-agent-app-*.jar sample-agent-app/target/sample-agent-app-*.jar.original
./mvnw -B -q -DskipTests package -pl sample-agent-app -am

RUN="$(date +%Y%m%d%H%M%S)"
OUT="$DEMO_HOME/run-$RUN"
mkdir -p "$OUT"
echo "==> starting sample-agent-app (profile demo) on 127.0.0.1:$PORT against $NATS_URL (posts and ledger in $OUT)"
java -jar sample-agent-app/target/sample-agent-app-0.1.0-SNAPSHOT.jar --server.port="$PORT" \
  --spring.profiles.active=demo --exactlyonce.nats.servers="$NATS_URL" \
  --sample.output-dir="$OUT" --sample.work-duration=2s > "$OUT/app.log" 2>&1 &
APP_PID=$!
stop_app() {
  [ "${KEEP_RUNNING:-0}" = "1" ] && return
  kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null || true
  [ -z "$NATS_PID" ] || kill "$NATS_PID" 2>/dev/null || true
}
trap stop_app EXIT
# a loaded machine can take minutes to start it: wait up to 5 minutes, then say so
for _ in $(seq 1 600); do
  curl -fs "http://127.0.0.1:$PORT/posts" >/dev/null 2>&1 && break
  kill -0 "$APP_PID" 2>/dev/null || { echo "sample-agent-app exited; last lines of $OUT/app.log:" >&2; tail -30 "$OUT/app.log" >&2; exit 1; }
  sleep 0.5
done
curl -fs "http://127.0.0.1:$PORT/posts" >/dev/null 2>&1 \
  || { echo "sample-agent-app did not answer on 127.0.0.1:$PORT within 5 minutes; see $OUT/app.log" >&2; exit 1; }

assign() {
  curl -fs -X POST "http://127.0.0.1:$PORT/tasks" -H 'Content-Type: application/json' \
    -d "{\"taskId\":\"$1\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{\"topic\":\"$2\"}}"
}
echo "==> CEO agent assigns tasks"
TASKS=("demo-$RUN-1" "demo-$RUN-2")
PUBLISHES=0
DUPLICATE_PUBLISHES=0
for spec in "${TASKS[0]}:launch" "${TASKS[1]}:pricing" "${TASKS[0]}:launch"; do
  answer="$(assign "${spec%%:*}" "${spec##*:}")"
  echo "    POST /tasks ${spec%%:*} -> $answer"
  PUBLISHES=$((PUBLISHES + 1))
  case "$answer" in *'"duplicate":true'*) DUPLICATE_PUBLISHES=$((DUPLICATE_PUBLISHES + 1));; esac
done

# the operations endpoint's view of a task, and one string field of it
ACTUATOR="http://127.0.0.1:$PORT/actuator/exactlyonceops"
OPS="$ACTUATOR/marketing-task-worker"
# task_view <key> [consumer]: the task (of marketing-task-worker unless named)
task_view() { curl -fs "$ACTUATOR/${2:-marketing-task-worker}/tasks?key=$1" 2>/dev/null || true; }
# wait_for <status> <key> [consumer]: up to 60 s
wait_for() {
  for _ in $(seq 1 60); do
    [ "$(task_view "$2" "${3:-}" | field status)" = "$1" ] && return
    sleep 1
  done
}
field() { grep -o "\"$1\":\"[^\"]*\"" | head -1 | sed "s/^\"$1\":\"//; s/\"\$//"; }

echo "==> marketing agent drafts (2 s each), then waits up to 7 days for a person's approval, holding no worker"
for t in "${TASKS[@]}"; do
  wait_for WAITING "$t"
  view="$(task_view "$t")"
  printf '    %-24s %s: %s\n' "$t" "$(field status <<< "$view")" "$(field resultSummary <<< "$view")"
done

# signal <key> <approved> <comment>: the approval signal {"action":"signal","key":...,"name":"approval","payload":
# "<Approval as JSON>","id":...,"reason":...} (the key in the body: a key with '/' cannot travel in a path), audited
signal() {
  local approval="{\\\"approved\\\":$2,\\\"by\\\":\\\"demo\\\",\\\"comment\\\":\\\"$3\\\"}"
  curl -s -X POST "$OPS/tasks" -H 'Content-Type: application/json' -d "{\"action\":\"signal\",\"key\":\"$1\",\
\"name\":\"approval\",\"payload\":\"$approval\",\"id\":\"$1-review\",\"reason\":\"$3\"}"
}
echo "==> a person answers through POST /actuator/exactlyonceops/marketing-task-worker/tasks {\"action\":\"signal\",\"key\":...,\"name\":\"approval\",...}"
# RESUMED means the signal reached the waiting task and it runs on with it: an approval commits and
# deploys the draft, a rejection completes the task without a commit
outcome_of() { local outcome; outcome="$(field outcome <<< "$1")"; echo "${outcome:-$1}"; }
echo "    approve ${TASKS[0]} -> $(outcome_of "$(signal "${TASKS[0]}" true "on message")") (the approval reached its wait: the task resumes to commit and deploy)"
echo "    reject  ${TASKS[1]} -> $(outcome_of "$(signal "${TASKS[1]}" false "off brand")") (the rejection reached its wait: the task resumes to complete without a commit)"

LEDGER="$OUT/ledger.log"
for _ in $(seq 1 60); do
  [ -f "$LEDGER" ] && [ "$(wc -l < "$LEDGER")" -ge ${#TASKS[@]} ] && break
  sleep 1
done
DEPLOYS="$OUT/deploys.log"
for _ in $(seq 1 30); do
  [ -f "$DEPLOYS" ] && [ "$(wc -l < "$DEPLOYS")" -ge 1 ] && break
  sleep 1
done

EXECUTED=$( [ -f "$LEDGER" ] && wc -l < "$LEDGER" || echo 0)
echo
echo "ledger ($LEDGER):"
sed 's/^/    /' "$LEDGER" 2>/dev/null || true
echo
printf '%-38s %s\n' "tasks published (unique)" "${#TASKS[@]}"
printf '%-38s %s\n' "publish calls" "$PUBLISHES"
printf '%-38s %s\n' "duplicates suppressed by stream dedup" "$DUPLICATE_PUBLISHES"
printf '%-38s %s\n' "executions" "$EXECUTED"
for t in "${TASKS[@]}"; do
  printf '%-38s %s\n' "  executions of $t" "$(grep -c "^$t " "$LEDGER" 2>/dev/null || echo 0)"
done
echo
echo "durable steps per task (draft = model call, commit = git commit in $OUT, deploy = DevOps agent) and its result:"
lines_of() { if [ -f "$2" ]; then grep -c "^$1 " "$2" || true; else echo 0; fi; }
commits_of() { git -C "$OUT" log --format=%H --grep="^Task-Id: $1\$" 2>/dev/null | wc -l; }
printf '    %-24s %7s %8s %8s  %s\n' task drafts commits deploys result
for t in "${TASKS[@]}"; do
  view="$(task_view "$t")"
  printf '    %-24s %7s %8s %8s  %s\n' "$t" "$(lines_of "$t" "$OUT/drafts.log")" "$(commits_of "$t")" \
    "$(lines_of "$t" "$DEPLOYS")" "$(field status <<< "$view") $(field resultSummary <<< "$view")"
done
echo "    (each task's view, audit of the approval included: curl '$OPS/tasks?key=<task>')"

CAMPAIGN="campaign-$RUN"
CHILDREN="ceo-campaign-worker/$CAMPAIGN"   # a child's key: <parent consumer>/<parent key>/<name>
POSTS=(blog-post newsletter social-post)
echo
echo "==> CEO agent runs campaign $CAMPAIGN: three posts as child tasks, waits for all three, then one deploy child"
echo "    POST /campaigns $CAMPAIGN -> $(curl -fs -X POST "http://127.0.0.1:$PORT/campaigns" -H 'Content-Type: application/json' \
  -d "{\"campaignId\":\"$CAMPAIGN\",\"topic\":\"launch\"}")"
for post in "${POSTS[@]}"; do
  wait_for WAITING "$CHILDREN/$post"
  printf '    %-52s %s: %s\n' "$CHILDREN/$post" "$(task_view "$CHILDREN/$post" | field status)" \
    "$(task_view "$CHILDREN/$post" | field resultSummary)"
done
wait_for WAITING "$CAMPAIGN" ceo-campaign-worker
view="$(task_view "$CAMPAIGN" ceo-campaign-worker)"
printf '    %-52s %s: %s (it waits for all three posts, the one named now; it holds no worker)\n' "$CAMPAIGN" "$(field status <<< "$view")" \
  "$(field resultSummary <<< "$view")"
echo "==> a person approves the campaign's three drafts (same endpoint; their keys hold '/', so the key goes in the body)"
for post in "${POSTS[@]}"; do
  echo "    approve $CHILDREN/$post -> $(outcome_of "$(signal "$CHILDREN/$post" true "campaign copy")") (the approval reached its wait: the post resumes to commit)"
done
wait_for COMPLETED "$CAMPAIGN" ceo-campaign-worker
view="$(task_view "$CAMPAIGN" ceo-campaign-worker)"
echo "==> the campaign resumed once its three posts were done, deployed their commits as one DevOps child, and finished"
printf '    %-52s %s %s\n' "$CAMPAIGN" "$(field status <<< "$view")" "$(field resultSummary <<< "$view")"
printf '    %-52s %s %s deploy(s)\n' "$CHILDREN/deploy" "$(task_view "$CHILDREN/deploy" devops-task-worker | field status)" \
  "$(lines_of "$CAMPAIGN" "$DEPLOYS")"
echo "    (the campaign's children and a child's parent: curl '$ACTUATOR/ceo-campaign-worker/tasks?key=$CAMPAIGN')"
echo
echo "==> reconciliation (stream sequences vs completion records vs acks vs dead letters, last hour)"
curl -fs -X POST "http://127.0.0.1:$PORT/actuator/exactlyonce" -H 'Content-Type: application/json' \
  -d '{"window":"1h"}' > "$OUT/reconciliation.json" || echo "    reconciliation failed; see $OUT/app.log"
curl -fs "http://127.0.0.1:$PORT/actuator/exactlyonce/table" | sed 's/^/    /' || true
echo
echo "posts:   curl http://localhost:$PORT/posts"
echo "health:  curl http://localhost:$PORT/actuator/health"
echo "metrics: curl http://localhost:$PORT/actuator/prometheus | grep exactlyonce"
echo "dashboard: http://localhost:$PORT/exactlyonce   (tasks, waiting tasks, dead letters with replay / discard, monthly table)"
if [ "${KEEP_RUNNING:-0}" = "1" ]; then
  echo "sample-agent-app keeps running (pid $APP_PID); stop it with: kill $APP_PID"
  [ -z "$NATS_PID" ] || echo "nats-server keeps running (pid $NATS_PID); stop it with: kill $NATS_PID"
else
  echo "(the app, and the nats-server the demo started, stop now: KEEP_RUNNING=1 scripts/demo.sh keeps them up for these)"
fi
[ "$EXECUTED" -eq ${#TASKS[@]} ] && [ "$(commits_of "${TASKS[0]}")" -eq 1 ] && [ "$(commits_of "${TASKS[1]}")" -eq 0 ] \
  && [ "$(task_view "$CAMPAIGN" ceo-campaign-worker | field status)" = "COMPLETED" ] && [ "$(lines_of "$CAMPAIGN" "$DEPLOYS")" -eq 1 ]
