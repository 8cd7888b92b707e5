package dev.exactlyonce.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a run's CPU time went in this JVM, by thread group (the thread name with its numbers
 * replaced by {@code N}), per message: printed after each run when {@code -Dbenchmark.threads=true}.
 * Threads that ended during the run are not counted.
 */
final class ThreadCpu {

	private static final boolean ENABLED = Boolean.getBoolean("benchmark.threads");

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final Map<Long, Long> start = new HashMap<>();

	/** Reads every live thread's CPU time, when enabled. */
	ThreadCpu() {
		if (ENABLED) {
			for (long id : THREADS.getAllThreadIds()) {
				this.start.put(id, THREADS.getThreadCpuTime(id));
			}
		}
	}

	/**
	 * Prints CPU µs per message by thread group since this was created, when enabled.
	 * @param label the run
	 * @param messages the messages of the run
	 */
	void print(String label, int messages) {
		if (!ENABLED) {
			return;
		}
		Map<String, Long> byGroup = new TreeMap<>();
		for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
			if (info != null) {
				long cpu = THREADS.getThreadCpuTime(info.getThreadId()) - this.start.getOrDefault(info.getThreadId(), 0L);
				byGroup.merge(info.getThreadName().replaceAll("[0-9]+", "N"), cpu, Long::sum);
			}
		}
		StringBuilder line = new StringBuilder("CPU µs/msg by thread, " + label + ":");
		byGroup.entrySet()
			.stream()
			.filter((group) -> group.getValue() > 0)
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((group) -> line.append(String.format(Locale.ROOT, " [%s %.1f]", group.getKey(),
					group.getValue() / 1000.0 / messages)));
		System.out.println(line);
	}

}
