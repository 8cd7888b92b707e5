#!/usr/bin/env bash
# Benchmarks the exactly-once listener against raw JetStream on this machine, in one run: raw jnats
# pull + ack() / ackSync, and the listener on the memory, NATS KV, Redis, Firestore-emulator and
# JDBC (PostgreSQL, fsync on) stores, at concurrency 1, 8 and 64, with a no-op and a 50 ms handler.
# Starts its own nats-server, redis-server, Firestore emulator and PostgreSQL; prints Markdown
# tables (see docs/benchmarks.md). BENCHMARK_STORES=nats-kv,jdbc measures only those stores.
#   scripts/benchmark.sh                    full run (3 interleaved repetitions)
#   scripts/benchmark.sh --quick            smoke run
#   scripts/benchmark.sh --stores           per-store claim/complete latency instead
#   scripts/benchmark.sh --scale            NATS KV and Redis grown to 0, 100k and 1M records instead: fill
#                                           rate, claim/complete p50/p99, bytes per record, scan time and
#                                           heap, nats-server restart time per level (ScaleBenchmark;
#                                           -Dbenchmark.scale.levels=0,100000,1000000,10000000 for more)
#   scripts/benchmark.sh --waits            durable waits, NATS KV store, concurrency 4, max-ack-pending 16:
#                                           no-wait throughput with 10,000 tasks waiting vs none, heap per
#                                           waiting task, signal -> re-entry p50/p99, 10,000 timers (5 s
#                                           sleeps): fired - deadline (WaitsBenchmark; about 3 minutes)
#   scripts/benchmark.sh --peers            the starter side by side with DBOS Transact for Java (same PostgreSQL),
#                                           a 3-step task: tasks/s, latency, CPU, statements, signal, crash-resume
#   scripts/benchmark.sh --children         child tasks, NATS KV store: parents of 10, 100 and 1,000 children
#                                           (startChild + awaitAll), one at a time: last child -> parent resumed
#                                           p50/p99, resumptions per parent, wall time, store and waits-bucket
#                                           writes per child (ChildrenBenchmark; -Dbenchmark.children.rows=10x20,100x5,1000x2,
#                                           -Dbenchmark.children.work-ms=20, -Dbenchmark.children.store=jdbc for PostgreSQL)
#   scripts/benchmark.sh --limits           limits, NATS KV store: a step under a concurrency limit vs none (p50/p99,
#                                           CPU per task), throughput at concurrency 4 on one key with 64 workers, and
#                                           at a rate of 600 per minute (LimitsBenchmark; about 4 minutes)
#   scripts/benchmark.sh --virtual-threads  a 50 ms handler at concurrency 1,000 on platform vs virtual threads
#                                           (spring.threads.virtual.enabled), memory and NATS KV stores: msgs/s,
#                                           latency, platform threads, heap, RSS (VirtualThreadsBenchmark; needs
#                                           Java 21+, e.g. JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64)
# Further -D options are passed on, e.g. scripts/benchmark.sh --quick -Dbenchmark.handlers=0 -Dbenchmark.messages=5000
#   -Dbenchmark.rows='exactly-once nats-kv;exactly-once nats-kv, ack-mode async'   only these exactly-once rows
#                                           (by label, ';'-separated; the raw rows and the floor always run)
#   -Dbenchmark.jfr=target/jfr              a JFR recording (settings=profile) of each measured run's timed
#                                           window, one file per run; exactly-once-benchmarks/jfr-stages.py
#                                           turns them into CPU per stage (docs/benchmarks.md, "Where it goes")
#   -Dbenchmark.threads=true                CPU µs/msg by thread group after each run, GC/JIT/VM threads included
# The benchmark runs in Maven's JVM (exec:java, not forked): give it JVM options with MAVEN_OPTS, e.g.
#   MAVEN_OPTS='-XX:StartFlightRecording=filename=bench.jfr,settings=profile' scripts/benchmark.sh ...
# (that records the whole Maven run, build included; -Dbenchmark.jfr records only the measured windows).
set -euo pipefail
cd "$(dirname "$0")/.."
main=dev.exactlyonce.benchmark.PipelineBenchmark
extra=()
case "${1:-}" in
  --quick) extra+=(-Dbenchmark.quick=true); shift ;;
  --stores) main=dev.exactlyonce.benchmark.StoreLatencyBenchmark; shift ;;
  --scale) main=dev.exactlyonce.benchmark.ScaleBenchmark; shift ;;
  --virtual-threads) main=dev.exactlyonce.benchmark.VirtualThreadsBenchmark; shift ;;
  --waits) main=dev.exactlyonce.benchmark.WaitsBenchmark; shift ;;
  --peers) main=dev.exactlyonce.benchmark.PeersBenchmark; shift ;;
  --children) main=dev.exactlyonce.benchmark.ChildrenBenchmark; shift ;;
  --limits) main=dev.exactlyonce.benchmark.LimitsBenchmark; shift ;;
esac
extra+=("$@")
run() {
  ./mvnw -B -q -pl exactly-once-test-support,exactly-once-autoconfigure,exactly-once-benchmarks -am -Pbenchmark \
    -DskipTests -Dbenchmark.main="$main" ${BENCHMARK_STORES:+-Dbenchmark.stores="$BENCHMARK_STORES"} "$@" verify
}
if [ "$main" = dev.exactlyonce.benchmark.VirtualThreadsBenchmark ]; then
  # each kind of thread in a JVM of its own: one kind's memory does not carry into the other's figures
  run -Dbenchmark.thread-kinds=platform "${extra[@]}"
  run -Dbenchmark.thread-kinds=virtual -Dbenchmark.header=false "${extra[@]}"
else
  run "${extra[@]}"
fi
