package dev.exactlyonce.benchmark;

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
import io.nats.client.Message;

/**
 * Consumes a durable pull consumer with plain jnats the way a careful hand-written worker would:
 * pulls no more than there are free workers, runs the handler, then {@code ack()} or
 * {@code ackSync}. No claim, no record, no working acks: the baseline. Throughput is timed from the
 * first pull to the last ack (not to the last, empty pull).
 */
final class RawConsumerRun {

	private RawConsumerRun() {
	}

	static RunResult run(Connection connection, String stream, String consumer, Scenario scenario) throws Exception {
		ConsumerContext context = connection.getStreamContext(stream).getConsumerContext(consumer);
		LatencyRecorder latency = new LatencyRecorder(scenario.messages());
		CountDownLatch done = new CountDownLatch(scenario.messages());
		Semaphore free = new Semaphore(scenario.concurrency());
		ExecutorService workers = Executors.newFixedThreadPool(scenario.concurrency());
		AtomicLong lastAck = new AtomicLong();
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
						workers.execute(() -> handle(delivered, receivedAt, scenario, latency, done, free, lastAck));
					}
				}
				free.release(wanted - received);
			}
			double seconds = (lastAck.get() - started) / 1e9;
			double cpuPerMessage = ProcessCpu.microsPerMessageSince(cpu, scenario.messages());
			double serverCpuPerMessage = ServerCpu.microsPerMessageSince(serverCpu, scenario.messages());
			threadCpu.print(scenario.label(), scenario.messages());
			return new RunResult(scenario.messages() / seconds, latency, Map.of(), cpuPerMessage, serverCpuPerMessage);
		}
		finally {
			workers.shutdownNow();
		}
	}

	private static void handle(Message message, long receivedAt, Scenario scenario, LatencyRecorder latency,
			CountDownLatch done, Semaphore free, AtomicLong lastAck) {
		try {
			BenchmarkWork.perform(scenario.workMillis());
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
