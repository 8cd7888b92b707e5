package dev.exactlyonce.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Crash-resume of one system: a worker JVM ({@link CrashResumeWorker}) takes {@value #TASKS} tasks
 * and holds them all in step 2; it is killed with SIGKILL; a new worker JVM starts at once. Measures
 * the seconds from the kill to the first step 2 the new JVM starts (its start-up included), whether
 * any step 1 ran again there, and whether every task reached step 3.
 */
final class CrashResume {

	static final int TASKS = 20;

	private static final long TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(3);

	private CrashResume() {
	}

	/**
	 * Crashes and resumes a worker of one system.
	 * @param label the row's name
	 * @param scenario the crash's own name (its queue or consumer, its task ids)
	 * @param system the worker's arguments after {@code first|resume tasks scenario} (see {@link CrashResumeWorker})
	 * @return the table line
	 * @throws Exception when a worker cannot run
	 */
	static String measure(String label, String scenario, List<String> system) throws Exception {
		List<String> arguments = new ArrayList<>(List.of(scenario));
		arguments.addAll(system);
		Worker first = new Worker("first", arguments);
		try {
			first.await(2, TASKS);
		}
		finally {
			first.process.destroyForcibly().waitFor();
		}
		long killed = System.nanoTime();
		Worker second = new Worker("resume", arguments);
		try {
			double resumed = (second.await(2, 1) - killed) / 1e9;
			long lastStep3 = second.await(3, TASKS);
			long againStep1 = second.steps.stream().filter((line) -> line.endsWith(" 1")).count();
			String started = (second.started != 0) ? String.format(Locale.ROOT, "%.1f", (second.started - killed) / 1e9) : "—";
			return String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %.1f | %d of %d | %d of %d |", label, TASKS, resumed,
					started, (lastStep3 - killed) / 1e9, againStep1, TASKS, second.seen(3), TASKS);
		}
		finally {
			second.process.destroyForcibly().waitFor();
		}
	}

	/** A worker JVM and the step lines it printed. */
	private static final class Worker {

		private final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private final List<String> steps = new ArrayList<>();

		/** When the worker said its system had started, or 0. */
		private volatile long started;

		Worker(String mode, List<String> system) throws Exception {
			List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
					"-cp", classpath(), CrashResumeWorker.class.getName(), mode, Integer.toString(TASKS)));
			command.addAll(system);
			this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
			Thread reader = new Thread(this::read, "crash-resume-" + mode);
			reader.setDaemon(true);
			reader.start();
		}

		private void read() {
			try (BufferedReader reader = new BufferedReader(
					new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = reader.readLine(); line != null; line = reader.readLine()) {
					if (line.startsWith(CrashResumeWorker.STEP)) {
						this.lines.add(line);
					}
					else if (line.equals(CrashResumeWorker.STARTED)) {
						this.started = System.nanoTime();
					}
				}
			}
			catch (java.io.IOException ex) {
				// the worker was killed
			}
		}

		/** Waits until {@code count} tasks have started step {@code step}; answers when the last did. */
		long await(int step, int count) throws InterruptedException {
			long deadline = System.nanoTime() + TIMEOUT_NANOS;
			while (seen(step) < count) {
				String line = this.lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				if (line == null) {
					throw new IllegalStateException(seen(step) + " of " + count + " tasks reached step " + step
							+ " within 3 minutes; the worker printed " + this.steps);
				}
				this.steps.add(line);
			}
			return System.nanoTime();
		}

		int seen(int step) {
			return (int) this.steps.stream().filter((line) -> line.endsWith(" " + step)).map((line) -> line.split(" ")[1])
				.distinct().count();
		}

	}

	/** This benchmark's classpath: the class loader's under Maven's {@code exec:java}, else the JVM's. */
	private static String classpath() {
		if (CrashResume.class.getClassLoader() instanceof URLClassLoader loader) {
			return Arrays.stream(loader.getURLs()).map(CrashResume::path).collect(Collectors.joining(java.io.File.pathSeparator));
		}
		return System.getProperty("java.class.path");
	}

	private static String path(URL url) {
		try {
			return Path.of(url.toURI()).toString();
		}
		catch (java.net.URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
