package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One consumer "pod": a sample-agent-app JVM that is started again whenever it dies. Each start is
 * an incarnation with its own instance id ({@code c1.3}); all incarnations share the slot's output
 * directory, so its ledger, chaos log and console output accumulate there.
 */
final class ConsumerSlot {

	private final String name;

	private final Path directory;

	private final SampleAppLauncher launcher;

	private final Map<String, String> environment;

	private int incarnation;

	private Process process;

	private boolean stopped;

	private boolean armed;

	private boolean ready;

	/**
	 * Creates the slot.
	 * @param name its name, the prefix of its instance ids
	 * @param directory its output directory
	 * @param launcher starts its JVMs
	 * @param environment added to the environment of each of its JVMs (e.g. a preloaded libfaketime)
	 */
	ConsumerSlot(String name, Path directory, SampleAppLauncher launcher, Map<String, String> environment) {
		this.name = name;
		this.directory = directory;
		this.launcher = launcher;
		this.environment = environment;
		try {
			Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts a new incarnation.
	 * @param common properties every consumer gets
	 * @param chaos extra properties of this incarnation (chaos), may be empty
	 */
	void start(Map<String, String> common, Map<String, String> chaos) {
		this.incarnation++;
		String instanceId = this.name + "." + this.incarnation;
		Map<String, String> properties = new LinkedHashMap<>(common);
		properties.put("exactlyonce.instance-id", instanceId);
		properties.put("sample.instance-id", instanceId);
		properties.put("sample.output-dir", this.directory.toString());
		properties.putAll(chaos);
		this.process = this.launcher.start(properties, this.directory.resolve("console.log"), this.environment);
		this.stopped = false;
		this.ready = false;
	}

	/**
	 * Whether the current incarnation finished its start-up (its console has as many
	 * {@code Started SampleAgentApplication} lines as the slot had incarnations), so its listeners
	 * take tasks.
	 */
	boolean ready() {
		if (!this.ready && alive()) {
			this.ready = Evidence.consoleLinesContaining(List.of(this), "Started SampleAgentApplication")
					>= this.incarnation;
		}
		return this.ready;
	}

	boolean alive() {
		return this.process != null && this.process.isAlive();
	}

	/** The exit status of the last incarnation; only when it is not alive. */
	int exitStatus() {
		return this.process.exitValue();
	}

	boolean hasProcess() {
		return this.process != null;
	}

	/** Forgets the dead incarnation (after the driver counted its exit). */
	void clear() {
		this.process = null;
	}

	/** Whether the current incarnation runs with chaos. */
	boolean armed() {
		return this.armed;
	}

	void armed(boolean chaos) {
		this.armed = chaos;
	}

	boolean stopped() {
		return this.stopped;
	}

	/** {@code kill -STOP}: the JVM freezes with its claims, connections and threads. */
	void pause() {
		signal("STOP");
		this.stopped = true;
	}

	/** {@code kill -CONT}: the frozen JVM resumes where it was. */
	void resume() {
		signal("CONT");
		this.stopped = false;
	}

	/** SIGTERM, without waiting: the JVM runs its shutdown hooks (the listeners' shutdown timeout) and exits. */
	void terminate() {
		this.process.destroy();
	}

	/** SIGTERM and wait: in-flight handlers finish (or are handed over) before it exits. */
	void stopGracefully() {
		if (this.process == null) {
			return;
		}
		if (this.stopped) {
			resume();
		}
		terminate();
		try {
			if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** SIGKILL, for cleaning up after a failed run. */
	void kill() {
		if (this.process != null && this.process.isAlive()) {
			if (this.stopped) {
				signal("CONT");
			}
			this.process.destroyForcibly();
		}
	}

	/**
	 * SIGKILL, then waits until the JVM is gone: none of its threads runs after this returns.
	 */
	void killAndWait() {
		if (this.stopped) {
			signal("CONT");
		}
		this.process.destroyForcibly();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("consumer " + instanceId() + " still runs 10 s after its SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/** The current incarnation's instance id ({@code c1.3}). */
	String instanceId() {
		return this.name + "." + this.incarnation;
	}

	String name() {
		return this.name;
	}

	Path directory() {
		return this.directory;
	}

	int incarnations() {
		return this.incarnation;
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO()
				.start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
