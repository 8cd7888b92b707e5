package dev.exactlyonce.benchmark;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * CPU time used by this JVM (every thread, GC and JIT included); the servers (nats-server, redis,
 * the emulator, PostgreSQL) run in other processes and are not counted.
 */
final class ProcessCpu {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private ProcessCpu() {
	}

	/**
	 * This process's CPU time so far.
	 * @return nanoseconds
	 */
	static long nanos() {
		return OS.getProcessCpuTime();
	}

	/**
	 * CPU microseconds per message since a reading of {@link #nanos()}.
	 * @param startNanos the earlier reading
	 * @param messages the messages handled since
	 * @return microseconds per message
	 */
	static double microsPerMessageSince(long startNanos, int messages) {
		return (nanos() - startNanos) / 1000.0 / messages;
	}

}
