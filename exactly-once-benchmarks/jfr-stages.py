#!/usr/bin/env python3
"""Where a row's CPU goes, by stage: reads the output of a benchmark run made with -Dbenchmark.threads=true
-Dbenchmark.jfr=<dir> (its "CPU µs/msg by thread" lines and the JFR file of each measured run) and prints a
Markdown table: per stage, its share of the Java execution samples and its CPU µs/msg (each thread group's
measured CPU split over the stages by that group's samples; GC, JIT and VM threads as one row), then the top
self frames, the JSON split and allocated bytes per message. See docs/benchmarks.md, "Where it goes".
usage: jfr-stages.py <benchmark output> <measured runs to skip (JIT warm-up)> <messages per run> <row label>...
e.g.   jfr-stages.py out.txt 1 60000 'exactly-once nats-kv, c=64, handler 0 ms' \
           'raw claim+complete+ack() (floor: NATS KV create, update on its revision, ack), c=64, handler 0 ms'"""
import re, subprocess, sys, collections, statistics, glob, os

def norm(name):
    return re.sub(r'[0-9]+', 'N', name)

def unit(v):
    num, u = v.split()
    return float(num) * {'bytes': 1, 'kB': 1e3, 'MB': 1e6, 'GB': 1e9, 'ns': 1e-3, 'us': 1, 'ms': 1e3, 's': 1e6}[u]

def allocations(path):
    text = subprocess.run(['jfr', 'print', '--events', 'jdk.ObjectAllocationSample', '--stack-depth', '400', path],
                          capture_output=True, text=True, check=True).stdout
    for block in text.split('\n}\n'):
        m = re.search(r'eventThread = "([^"]*)"', block)
        w = re.search(r'weight = ([0-9.]+ \w+)', block)
        c = re.search(r'objectClass = (\S+)', block)
        if not m or not w:
            continue
        frames = []
        if 'stackTrace = [' in block:
            for line in block.split('stackTrace = [', 1)[1].splitlines()[1:]:
                line = line.strip()
                if line.startswith(']') or not line:
                    break
                if line != '...':
                    frames.append(re.sub(r'\(.*', '', line))
        yield m.group(1), frames, unit(w.group(1)), c.group(1)

def gc_pauses(path):
    text = subprocess.run(['jfr', 'print', '--events', 'jdk.GarbageCollection', path], capture_output=True, text=True, check=True).stdout
    return [unit(v) for v in re.findall(r'sumOfPauses = ([0-9.]+ \w+)', text)]

def samples(path, event='jdk.ExecutionSample'):
    text = subprocess.run(['jfr', 'print', '--events', event, '--stack-depth', '400', path],
                          capture_output=True, text=True, check=True).stdout
    for block in text.split('\n}\n'):
        m = re.search(r'sampledThread = "([^"]*)"', block)
        if not m:
            continue
        frames = []
        for line in block.split('stackTrace = [', 1)[1].splitlines()[1:]:
            line = line.strip()
            if line.startswith(']') or not line:
                break
            if line == '...':
                continue
            frames.append(re.sub(r'\(.*', '', line))   # pkg.Class.method
        st = re.search(r'state = "([^"]*)"', block)
        yield m.group(1), frames, (st.group(1) if st else '')

def has(frames, *needles):
    return any(any(n in f for n in needles) for f in frames)

JSON = ('tools.jackson.', 'com.fasterxml.jackson.', 'RecordCodec.', 'SealedJournal.encode', 'SealedJournal.decode',
        'java.time.format.', 'Instant.toString', 'Instant.parse')
NATS = ('io.nats.',)

def sub(frames):
    if has(frames, *JSON):
        return 'JSON encode/decode'
    if has(frames, 'NatsKeyValue', 'NatsJetStream', 'NatsConnection.request', 'NatsMessage', 'io.nats.'):
        return 'jnats request (publish, inbox, headers, future)'
    return 'own code'

def stage(thread, frames):
    g = norm(thread)
    leaf = frames[0] if frames else ''
    # threads outside the message path
    if 'working-acks' in g:
        return 'working acks (scheduler)'
    if g.startswith('JFR ') or 'JFR' in leaf:
        return 'JFR itself'
    # jnats connection threads (starter: exactly-once:N / exactlyonce-nats-reader-N; floor: nats:N)
    if g.startswith('nats:') or g.startswith('exactly-once:') or 'nats-reader' in g:
        if has(frames, 'NatsConnectionWriter'):
            return 'jnats writer thread (batches, socket writes)'
        if has(frames, 'NatsConnectionReader'):
            return 'jnats reader thread (parse, queue)'
        if has(frames, 'NatsDispatcher'):
            return 'jnats reply dispatcher (completes request futures, wakes the caller)'
        return 'jnats other (timers, cleanup)'
    if 'poller' in g or (g.startswith('dev.exactlyonce.benchmark.PipelineBenchmark.main') and has(frames, 'RawConsumerRun.run')):
        if has(frames, 'Semaphore', 'LockSupport', 'AbstractQueuedSynchronizer'):
            return 'poller/fetch: waiting for a free worker (semaphore)'
        if has(frames, 'ThreadPoolExecutor.execute', 'handOff', 'LinkedBlockingQueue'):
            return 'poller/fetch: hand-off to workers'
        return 'poller/fetch: pull (jnats fetch, next message)'
    if g.startswith('dev.exactlyonce.benchmark.PipelineBenchmark.main'):
        return 'benchmark main thread (waiting / publishing)'
    # message path on workers (starter) / pool threads (floor)
    if has(frames, 'PipelineObservers', 'PipelineStopwatch', 'io.micrometer', 'PipelineTally', 'ConsumerMetrics',
           'PipelineMetrics', 'PipelineObservation', 'LatencyRecorder', 'DeliverySettler.outcome', 'DuplicateTrace'):
        return 'observers, metrics, tallies, outcome'
    if has(frames, 'TimedIdempotencyStore') and not has(frames, 'NatsKvIdempotencyStore', 'CompareAndSetIdempotencyStore'):
        return 'observers, metrics, tallies, outcome'
    if has(frames, 'ClaimAttempts.claim', 'tryClaim') or (has(frames, 'RawConsumerRun.handle') and has(frames, 'NatsKeyValue.create')):
        return 'claim: ' + sub(frames)
    if has(frames, 'CompletionWriter.', 'CompareAndSetIdempotencyStore.complete') or (has(frames, 'RawConsumerRun.handle') and has(frames, 'NatsKeyValue.update')):
        return 'completion record: ' + sub(frames)
    if has(frames, 'DeliverySettler.ack', 'NatsMessage.ack', 'NatsJetStreamMessage.ack', 'AckType', 'ackSync') :
        return 'ack'
    if has(frames, 'WorkingAcks'):
        return 'working acks (start/stop heartbeat on the worker)'
    if has(frames, 'KeyResolver', 'ArgumentResolver', 'DeliveryProcessor$PayloadOnce', 'Delivery.<init>', 'DeliveryProcessor.delivery',
           'headers', 'Headers', 'DeliveryBinding', 'ListenerAttributeResolver', 'StrictUtf8', 'metaData', 'NatsJetStreamMetaData'):
        return 'key, arguments, headers, metadata'
    if has(frames, 'ThreadPoolExecutor.getTask', 'LinkedBlockingQueue', 'LockSupport', 'AbstractQueuedSynchronizer',
           'CompletableFuture', 'Semaphore', 'CountDownLatch'):
        return 'hand-offs, parking, futures, latches'
    if has(frames, 'Method.invoke', 'GeneratedMethodAccessor', 'ReflectiveMethodInvocation', 'CglibAopProxy', 'SpringCGLIB',
           'ExactlyOnceInterceptor', 'BenchmarkApplication', 'DeliveryProcessor.invoke', 'BenchmarkWork'):
        return 'handler invocation (reflection, AOP proxy, interceptor)'
    if has(frames, 'DeliverySettler', 'DeliveryProcessor', 'ListenerContainer', 'RawConsumerRun.handle', 'Delivery.'):
        return 'pipeline bookkeeping (settle, in-flight set)'
    return 'other: ' + leaf

def threadcpu(out, label):
    """Per-run ThreadCpu lines of the measured runs (those followed by a Flight recording line): process CPU,
    CPU by group, user-mode CPU by group (None when the run printed none), the JFR file."""
    lines = out.splitlines()
    runs = []
    for i, line in enumerate(lines):
        if not line.startswith('CPU µs/msg by thread, ' + label + ' ('):
            continue
        user = None
        j = i + 1
        if j < len(lines) and lines[j].startswith('User-mode CPU µs/msg by thread'):
            user = {g: float(v) for g, v in re.findall(r'\[(.+?) ([0-9.]+)\]', lines[j])}
            j += 1
        if j < len(lines) and lines[j].startswith('Flight recording'):
            m = re.search(r'\(process ([0-9.]+)\)', line)
            groups = {g: float(v) for g, v in re.findall(r'\[(.+?) ([0-9.]+)\]', line)}
            runs.append((float(m.group(1)), groups, lines[j].split(': ', 1)[1], user))
    return runs

argv = sys.argv
out = open(argv[1]).read(); skip = int(argv[2]); messages = int(argv[3]); labels = argv[4:]

ORDER = ['claim: KV create (jnats request on the worker)', 'claim: JSON encode/decode (Jackson)',
         'claim: own code (rules, token, key, unconfirmed-claims map)', 'handler invocation (reflection, AOP proxy, interceptor)',
         'completion: KV update (jnats request on the worker)', 'completion: JSON encode/decode (Jackson)',
         'completion: own code (writer, retry, heartbeat lock)', 'ack on the worker (ack() / ackSync)',
         'working acks (heartbeat start/stop, scheduler)', 'observers, metrics, tallies, outcome',
         'key, arguments, headers, metadata', 'hand-offs, parking, futures, bookkeeping',
         'poller / fetch loop (pull, hand-off)', 'jnats reply dispatcher (completes request futures, wakes workers)',
         'jnats writer thread', 'jnats reader thread', 'GC, JIT, VM threads (not sampled)', 'other (JFR, benchmark main thread, misc.)',
         'kernel time of the workers (futex park/unpark; not sampled)',
         'kernel time of the jnats threads (socket reads and writes, futex; not sampled)',
         'kernel time of the poller / fetch loop and other threads (not sampled)']

def merge(s):
    if s.startswith('claim: JSON'): return ORDER[1]
    if s.startswith('claim: jnats'): return ORDER[0]
    if s.startswith('claim: own'): return ORDER[2]
    if s.startswith('handler'): return ORDER[3]
    if s.startswith('completion record: jnats'): return ORDER[4]
    if s.startswith('completion record: JSON'): return ORDER[5]
    if s.startswith('completion record: own'): return ORDER[6]
    if s == 'ack': return ORDER[7]
    if s.startswith('working acks'): return ORDER[8]
    if s.startswith('observers'): return ORDER[9]
    if s.startswith('key,'): return ORDER[10]
    if s.startswith('hand-offs') or s.startswith('pipeline bookkeeping') or 'ThreadPoolExecutor.runWorker' in s: return ORDER[11]
    if s.startswith('poller') or 'exactlyonce-benchN-poller' in s: return ORDER[12]
    if s.startswith('jnats reply'): return ORDER[13]
    if s.startswith('jnats writer'): return ORDER[14]
    if s.startswith('jnats reader') or 'nats-reader' in s: return ORDER[15]
    if s.startswith('GC, JIT'): return ORDER[16]
    return ORDER[17]

res = {}
for label in labels:
    runs = threadcpu(out, label)[skip:]
    share = collections.Counter(); cpu = collections.Counter(); total = 0; procs = []; leaf = collections.Counter()
    for proc, groups, path, user in runs:
        procs.append(proc)
        per = collections.defaultdict(collections.Counter)
        for thread, frames, state in samples(path):
            s = stage(thread, frames)
            per[norm(thread)][s] += 1
            share[merge(s)] += 1; total += 1
            leaf[frames[0] if frames else '?'] += 1
        for g, c in groups.items():
            if g.startswith('not a Java thread'):
                cpu[ORDER[16]] += c / len(runs); continue
            if user is not None:
                kernel = max(0.0, c - user.get(g, 0.0))
                c -= kernel
                kind = 18 if ('worker' in g or g.startswith('pool-')) else 19 if (g.startswith('nats:') or g.startswith('exactly-once:') or 'nats-reader' in g) else 20
                cpu[ORDER[kind]] += kernel / len(runs)
            n = sum(per[g].values())
            if n == 0:
                cpu[merge('unsampled Java threads: ' + g)] += c / len(runs); continue
            for s, k in per[g].items():
                cpu[merge(s)] += c * k / n / len(runs)
    res[label] = (share, total, cpu, statistics.median(procs), statistics.mean(procs), leaf, len(runs))

print('| stage | ' + ' | '.join(f'{l.split(",")[0] if "floor" in l else l.replace(", c=64, handler 0 ms","")}: share / µs/msg' for l in labels) + ' |')
print('|---|' + '---:|' * len(labels))
for st in ORDER:
    cells = []
    for l in labels:
        share, total, cpu, med, mean, leaf, n = res[l]
        cells.append(f'{100*share[st]/total:.1f} % / {cpu[st]:.1f}' if (share[st] or cpu[st] >= 0.05) else '–')
    print(f'| {st} | ' + ' | '.join(cells) + ' |')
cells = []
for l in labels:
    share, total, cpu, med, mean, leaf, n = res[l]
    cells.append(f'{total} samples / {sum(cpu.values()):.1f} (mean of {n} runs; median {med:.1f})')
print('| **JVM total** | ' + ' | '.join(cells) + ' |')
for l in labels:
    share, total, cpu, med, mean, leaf, n = res[l]
    print(f'\ntop 10 self frames, {l}:')
    for f, k in leaf.most_common(10):
        print(f'| `{f}` | {100*k/total:.1f} % |')

for l in labels:
    runs = threadcpu(out, l)[skip:]
    tot = js = jv = tm = 0
    alloc = 0.0
    for proc, groups, path, user in runs:
        for thread, frames, st in samples(path):
            tot += 1
            if has(frames, *JSON):
                js += 1
                jv += has(frames, 'JsonValueSerializer')
                tm += has(frames, 'java.time')
        alloc += sum(w for _, _, w, _ in allocations(path)) / messages / len(runs)
    print(f'\n{l}: JSON {100*js/tot:.1f} % of samples (@JsonValue path {100*jv/tot:.1f} %, java.time {100*tm/tot:.1f} %); '
          f'allocated ~{alloc:.0f} bytes/msg (jdk.ObjectAllocationSample weights)')
