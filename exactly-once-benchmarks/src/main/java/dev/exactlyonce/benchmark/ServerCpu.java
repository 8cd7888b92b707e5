package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.List;

import dev.exactlyonce.test.ServerProcess;

/**
 * CPU time used by the servers the benchmark started (nats-server, redis, the Firestore emulator,
 * PostgreSQL and their live child processes), which run outside this JVM. Idle servers add next
 * to nothing, so a run's figure is what the servers it used spent on it.
 */
final class ServerCpu {

	private static volatile List<ServerProcess> servers = List.of();

	private ServerCpu() {
	}

	/**
	 * Sets the servers to measure.
	 * @param started the servers
	 */
	static void measure(List<ServerProcess> started) {
		servers = List.copyOf(started);
	}

	/**
	 * The servers' CPU time so far.
	 * @return nanoseconds
	 */
	static long nanos() {
		return servers.stream().map(ServerProcess::cpuTime).mapToLong(Duration::toNanos).sum();
	}

	/**
	 * Server CPU microseconds per message since a reading of {@link #nanos()}.
	 * @param startNanos the earlier reading
	 * @param messages the messages handled since
	 * @return microseconds per message
	 */
	static double microsPerMessageSince(long startNanos, int messages) {
		return (nanos() - startNanos) / 1000.0 / messages;
	}

}
