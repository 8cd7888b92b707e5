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
 * Threads that ended during the run are not counted as Java threads: the group {@code not a Java thread
 * (GC, JIT, VM)} is the process's CPU time less that of the live Java threads, so it holds theirs too.
 * A second line gives each group's user-mode CPU time (the rest of its CPU time is in the kernel).
 */
final class ThreadCpu {

	private static final boolean ENABLED = Boolean.getBoolean("benchmark.threads");

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final Map<Long, Long> start = new HashMap<>();

	private final Map<Long, Long> userStart = new HashMap<>();

	private final long processStart = ProcessCpu.nanos();

	/** Reads every live thread's CPU time, when enabled. */
	ThreadCpu() {
		if (ENABLED) {
			for (long id : THREADS.getAllThreadIds()) {
				this.start.put(id, THREADS.getThreadCpuTime(id));
				this.userStart.put(id, THREADS.getThreadUserTime(id));
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
		long process = ProcessCpu.nanos() - this.processStart;
		Map<String, Long> byGroup = new TreeMap<>();
		Map<String, Long> userByGroup = new TreeMap<>();
		for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
			if (info != null) {
				long id = info.getThreadId();
				String group = info.getThreadName().replaceAll("[0-9]+", "N");
				byGroup.merge(group, THREADS.getThreadCpuTime(id) - this.start.getOrDefault(id, 0L), Long::sum);
				userByGroup.merge(group, THREADS.getThreadUserTime(id) - this.userStart.getOrDefault(id, 0L), Long::sum);
			}
		}
		long javaThreads = byGroup.values().stream().mapToLong(Long::longValue).sum();
		byGroup.put("not a Java thread (GC, JIT, VM)", process - javaThreads);
		StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "CPU µs/msg by thread, %s (process %.1f):",
				label, process / 1000.0 / messages));
		byGroup.entrySet()
			.stream()
			.filter((group) -> group.getValue() > 0)
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((group) -> line.append(String.format(Locale.ROOT, " [%s %.1f]", group.getKey(),
					group.getValue() / 1000.0 / messages)));
		System.out.println(line);
		StringBuilder user = new StringBuilder("User-mode CPU µs/msg by thread (the rest is kernel time), " + label + ":");
		userByGroup.entrySet()
			.stream()
			.filter((group) -> group.getValue() > 0)
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((group) -> user.append(String.format(Locale.ROOT, " [%s %.1f]", group.getKey(),
					group.getValue() / 1000.0 / messages)));
		System.out.println(user);
	}

}
