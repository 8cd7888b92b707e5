package dev.exactlyonce.takeover;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link TakeoverApp} in a JVM of its own that holds step 2, for a test to kill ({@code SIGKILL}),
 * pause ({@code SIGSTOP}) or cut off from NATS; {@link #close()} kills it.
 */
final class TakeoverWorker implements AutoCloseable {

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final Set<String> seen = new HashSet<>();

	/**
	 * Starts a worker and waits until it prints {@code READY}.
	 * @param natsUrl the server it connects to
	 * @param instanceId its instance id
	 */
	TakeoverWorker(String natsUrl, String instanceId) throws IOException, InterruptedException {
		this.process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), TakeoverApp.class.getName(), natsUrl, instanceId)
			.redirectErrorStream(true)
			.start();
		Thread reader = new Thread(this::read, "worker-output");
		reader.setDaemon(true);
		reader.start();
		awaitLine("READY");
	}

	private void read() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				this.lines.add(line);
			}
		}
		catch (IOException ex) {
			// killed
		}
	}

	/** Waits up to 60 s until the worker printed {@code expected} (now or before). */
	void awaitLine(String expected) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!this.seen.contains(expected)) {
			String line = this.lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			assertThat(line).as("worker line '" + expected + "' within 60 s").isNotNull();
			this.seen.add(line);
		}
	}

	/** Sends the process a signal ({@code STOP}, {@code CONT}...) while it runs. */
	void signal(String signal) throws IOException, InterruptedException {
		if (this.process.isAlive()) {
			new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start().waitFor();
		}
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/** Kills the process ({@code SIGKILL}, resuming it first if paused) and waits for its end. */
	@Override
	public void close() throws IOException, InterruptedException {
		signal("CONT");
		this.process.destroyForcibly().waitFor();
	}

}
