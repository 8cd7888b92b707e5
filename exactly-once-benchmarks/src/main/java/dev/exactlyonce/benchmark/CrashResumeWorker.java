package dev.exactlyonce.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The worker JVM of {@link CrashResume}: starts one system's workers and prints
 * {@code PEERS-STEP <task> <step>} as each step's action starts, and {@code PEERS-STARTED} once its
 * workers have started. Run {@code first}, it hands the
 * tasks over and holds every task in step 2 (its action sleeps for ten minutes) until the parent
 * kills it with SIGKILL; run {@code resume}, its steps return at once and it hands nothing over:
 * what it runs is what the system resumed.
 * <p>
 * Arguments: {@code first|resume tasks scenario dbos <jdbc-url> <user>} or
 * {@code first|resume tasks scenario starter <nats-urls> <replicas> <property>=<value>...}; the
 * scenario names the queue or consumer and prefixes the task ids, so each crash has its own.
 */
public final class CrashResumeWorker {

	/** The line a step prints as its action starts. */
	static final String STEP = "PEERS-STEP";

	/** The line printed once the system's workers have started. */
	static final String STARTED = "PEERS-STARTED";

	private static volatile boolean reporting;

	private static volatile boolean holding;

	private CrashResumeWorker() {
	}

	/**
	 * Runs the worker until killed.
	 * @param args see the class
	 * @throws Exception when the system cannot start
	 */
	public static void main(String[] args) throws Exception {
		boolean first = "first".equals(args[0]);
		int tasks = Integer.parseInt(args[1]);
		String scenario = args[2];
		reporting = true;
		holding = first;
		PeerSystem system = "dbos".equals(args[3]) ? new DbosPeer(args[4], args[5], List.of(), "dbos")
				: new StarterPeer(scenario, args[4], Integer.parseInt(args[5]), properties(args), List.of(), null);
		PeerSystem.Workers workers = system.start(scenario, 2 * tasks, 0, new AtomicReference<>());
		System.out.println(STARTED);
		System.out.flush();
		if (first) {
			for (int i = 0; i < tasks; i++) {
				workers.handOver(scenario + "-" + i);
			}
		}
		new CountDownLatch(1).await();
	}

	private static Map<String, String> properties(String[] args) {
		Map<String, String> properties = new HashMap<>();
		for (int i = 6; i < args.length; i++) {
			String[] pair = args[i].split("=", 2);
			properties.put(pair[0], pair[1]);
		}
		return properties;
	}

	/**
	 * Called as a step's action starts: in a worker JVM, prints it, and holds step 2 in the first run.
	 * @param taskId the task
	 * @param step its step, from 1
	 */
	static void stepStarting(String taskId, int step) {
		if (!reporting) {
			return;
		}
		System.out.println(STEP + " " + taskId + " " + step);
		System.out.flush();
		if (holding && step == 2) {
			BenchmarkWork.perform(600_000);
		}
	}

}
