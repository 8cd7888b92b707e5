#!/usr/bin/env bash
# Runs scripts/demo.sh as a stranger would, on a free HTTP port with a fresh demo directory and no
# NATS_URL, and checks what it prints: its own nats-server started on a free port (never 4222), two
# tasks run once each, the duplicate publish suppressed, both drafts waiting for approval, the
# approval and the rejection taken, the approved task drafted, committed and deployed once, the
# rejected one drafted once and completed as rejected without a commit, a campaign's three drafts
# waiting and approved, the campaign completed with one deploy of their commits, the reconciliation and the
# monthly table shown. The demo directory is deleted when the check
# passes, kept for a look when it fails. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=ports.sh
source scripts/ports.sh

SERVER_PORT="$(free_port)"
DEMO_HOME="$(mktemp -d "${TMPDIR:-/tmp}/exactlyonce-demo.XXXXXX")"
OUTPUT="$DEMO_HOME/demo-output.txt"
echo "==> scripts/demo.sh with SERVER_PORT=$SERVER_PORT DEMO_HOME=$DEMO_HOME"
env -u NATS_URL -u NATS_PORT SERVER_PORT="$SERVER_PORT" DEMO_HOME="$DEMO_HOME" scripts/demo.sh | tee "$OUTPUT"

failures=()
expect() { grep -Eq "$1" "$OUTPUT" || failures+=("missing: $2"); }
refuse() { ! grep -Eq "$1" "$OUTPUT" || failures+=("printed: $2"); }
expect '^==> starting its own nats-server with JetStream on localhost:[0-9]+ ' "its own nats-server, and where"
refuse '^==> starting its own nats-server with JetStream on localhost:4222 ' "the default port 4222, where another server may run"
expect '^tasks published \(unique\) +2$' "2 unique tasks"
expect '^duplicates suppressed by stream dedup +1$' "the duplicate publish suppressed"
[ "$(grep -Ec "^    demo-[0-9]+-[12] +WAITING: signal 'approval' until " "$OUTPUT")" = "2" ] \
  || failures+=("not both drafts waiting for their approval")
expect '^    approve demo-[0-9]+-1 -> RESUMED \(the approval reached its wait: the task resumes to commit and deploy\)$' \
  "the approval resuming its task"
expect '^    reject  demo-[0-9]+-2 -> RESUMED \(the rejection reached its wait: the task resumes to complete without a commit\)$' \
  "the rejection resuming its task"
expect '^executions +2$' "2 executions"
refuse '^  executions of [^ ]+ +([02-9]|[0-9]{2,})$' "a task not run exactly once"
expect '^    demo-[0-9]+-1 +1 +1 +1  COMPLETED [0-9a-f]{40}$' "the approved task drafted, committed and deployed once"
expect '^    demo-[0-9]+-2 +1 +0 +0  COMPLETED rejected by demo: off brand$' \
  "the rejected task drafted once, completed as rejected, not committed"
[ "$(grep -Ec "^    ceo-campaign-worker/campaign-[0-9]+/(blog-post|newsletter|social-post) +WAITING: signal 'approval' until " "$OUTPUT")" = "3" ] \
  || failures+=("not the campaign's three drafts waiting for their approval")
expect '^    campaign-[0-9]+ +WAITING: .* \(it waits for all three posts, the one named now; it holds no worker\)$' "the campaign waiting for its posts"
[ "$(grep -Ec '^    approve ceo-campaign-worker/campaign-[0-9]+/[a-z-]+ -> RESUMED \(' "$OUTPUT")" = "3" ] \
  || failures+=("not the campaign's three approvals resuming their posts")
expect '^    campaign-[0-9]+ +COMPLETED deployed 3 of 3 posts \(blog-post [0-9a-f]{7}, newsletter [0-9a-f]{7}, social-post [0-9a-f]{7}\)$' \
  "the campaign completed, its three posts deployed"
expect '^    ceo-campaign-worker/campaign-[0-9]+/deploy +COMPLETED 1 deploy\(s\)$' "the campaign's one deploy"
refuse 'reconciliation failed' "reconciliation failed"
[ -s "$(ls -d "$DEMO_HOME"/run-*/ | head -1)reconciliation.json" ] || failures+=("no reconciliation report")
if [ ${#failures[@]} -gt 0 ]; then
  printf 'demo check failed: %s\n' "${failures[@]}" >&2
  exit 1
fi
rm -rf "$DEMO_HOME"
echo "==> demo check passed"
