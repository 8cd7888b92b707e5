package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.KeyValue;
import io.nats.client.Message;

/**
 * Consumes a durable pull consumer with plain jnats the way a careful hand-written worker would:
 * pulls no more than there are free workers, runs the handler, then {@code ack()} or
 * {@code ackSync}. No claim, no record, no working acks: the baseline. With a bucket it is the floor of
 * exactly-once on NATS KV instead: before the handler a claim record is created under the message's
 * key (a create fails when the key exists), after it the completion is written as an update on the
 * claim's revision (a compare-and-set), then {@code ack()}: the two writes and the ack any
 * exactly-once consumer on NATS KV needs, with records of the starter's size. Throughput is timed from
 * the first pull to the last ack (not to the last, empty pull).
 */
final class RawConsumerRun {

	private RawConsumerRun() {
	}

	/** A claim as large as the starter's (key, owner, token, state, times, attempts), in JSON. */
	private static final byte[] CLAIM = ("{\"key\":\"bench:k-0000000000\",\"owner\":\"bench-host:12345#0000000000\","
			+ "\"token\":\"6f1c2a9e-3b7d-4e21-9a0c-5d8e7f6a1b2c\",\"state\":\"IN_PROGRESS\",\"attempts\":1,"
			+ "\"startedAt\":\"2026-11-27T21:00:00.000Z\",\"leaseUntil\":\"2026-11-27T21:00:20.000Z\","
			+ "\"expiresAt\":\"2026-11-30T21:00:00.000Z\",\"journal\":[]}").getBytes(StandardCharsets.UTF_8);

	/** The completion that replaces it. */
	private static final byte[] COMPLETION = new String(CLAIM, StandardCharsets.UTF_8)
		.replace("IN_PROGRESS", "COMPLETED")
		.replace("\"journal\"", "\"listener\":\"bench\",\"streamSequence\":1,\"completedAt\":"
				+ "\"2026-11-27T21:00:01.000Z\",\"resultSummary\":null,\"journal\"")
		.getBytes(StandardCharsets.UTF_8);

	static RunResult run(Connection connection, String stream, String consumer, Scenario scenario, KeyValue floor)
			throws Exception {
		ConsumerContext context = connection.getStreamContext(stream).getConsumerContext(consumer);
		LatencyRecorder latency = new LatencyRecorder(scenario.messages());
		CountDownLatch done = new CountDownLatch(scenario.messages());
		Semaphore free = new Semaphore(scenario.concurrency());
		ExecutorService workers = Executors.newFixedThreadPool(scenario.concurrency());
		AtomicLong lastAck = new AtomicLong();
		// started before the timed window and stopped after it: its start and its file are not in the figures
		FlightRecording recording = FlightRecording.start();
		long started = System.nanoTime();
		long cpu = ProcessCpu.nanos();
		long serverCpu = ServerCpu.nanos();
		ThreadCpu threadCpu = new ThreadCpu();
		try {
			while (done.getCount() > 0) {
				if (!free.tryAcquire(200, TimeUnit.MILLISECONDS)) {
					continue;
				}
				int wanted = 1 + free.drainPermits();
				int received = 0;
				try (FetchConsumer fetch = context.fetch(
						FetchConsumeOptions.builder().maxMessages(wanted).expiresIn(1000).build())) {
					for (Message message = fetch.nextMessage(); message != null; message = (received < wanted)
							? fetch.nextMessage() : null) {
						received++;
						long receivedAt = System.nanoTime();
						Message delivered = message;
						workers.execute(() -> handle(delivered, receivedAt, scenario, latency, done, free, lastAck, floor));
					}
				}
				free.release(wanted - received);
			}
			double seconds = (lastAck.get() - started) / 1e9;
			double cpuPerMessage = ProcessCpu.microsPerMessageSince(cpu, scenario.messages());
			double serverCpuPerMessage = ServerCpu.microsPerMessageSince(serverCpu, scenario.messages());
			threadCpu.print(scenario.label(), scenario.messages());
			recording.stop(scenario.label());
			return new RunResult(scenario.messages() / seconds, latency, Map.of(), cpuPerMessage, serverCpuPerMessage);
		}
		finally {
			workers.shutdownNow();
		}
	}

	private static void handle(Message message, long receivedAt, Scenario scenario, LatencyRecorder latency,
			CountDownLatch done, Semaphore free, AtomicLong lastAck, KeyValue floor) {
		try {
			String key = (floor != null) ? "k-" + message.metaData().streamSequence() : null;
			long claimRevision = (floor != null) ? floor.create(key, CLAIM) : 0;
			BenchmarkWork.perform(scenario.workMillis());
			if (floor != null) {
				floor.update(key, COMPLETION, claimRevision);
			}
			if (scenario.consumer().syncAck()) {
				message.ackSync(Duration.ofSeconds(5));
			}
			else {
				message.ack();
			}
			latency.record(receivedAt);
			lastAck.accumulateAndGet(System.nanoTime(), Math::max);
			done.countDown();
		}
		catch (Exception ex) {
			throw new IllegalStateException("raw ack failed", ex);
		}
		finally {
			free.release();
		}
	}

}
