package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real server process started by a test on a free loopback port with its own temporary
 * directory: started, stopped gracefully, killed with SIGKILL and restarted on the same port and
 * directory, so fault tests can take it away for real. Stopping and killing reach the launched
 * process's descendants too (a launcher script's JVM, for example), and a JVM shutdown hook kills
 * whatever a test left running. Its output goes to a log file in that directory, which
 * {@link #close()} (or the JVM's exit, for a server nobody closed) deletes unless the system property
 * {@code exactlyonce.test.keep-server-directories} or the environment variable
 * {@code EXACTLYONCE_TEST_KEEP_SERVER_DIRECTORIES} is {@code true}; {@link #stop()} keeps it for a
 * restart.
 */
public abstract class ServerProcess implements AutoCloseable {

	private final String name;

	private final int port;

	private final ServerDirectory directory;

	private Process process;

	private final Thread onExit;

	private boolean prepared;

	/**
	 * Creates the process handle; nothing runs until {@link #start()}.
	 * @param name a short name for the log file and messages
	 */
	protected ServerProcess(String name) {
		this.name = name;
		this.port = FreePorts.next();
		this.directory = new ServerDirectory(name);
		this.onExit = new Thread(this::close, name + "-killer");
		Runtime.getRuntime().addShutdownHook(this.onExit);
	}

	/**
	 * The command line that starts the server in the foreground.
	 * @return the command
	 */
	protected abstract List<String> command();

	/**
	 * Finds a server executable: the path in an environment variable, else an installed path,
	 * else a name looked up on the path.
	 * @param environmentVariable the variable that may name the executable
	 * @param installedPath where the machine's package installs it
	 * @param name the name to look up on the path otherwise
	 * @return the executable to run
	 */
	protected static String executable(String environmentVariable, String installedPath, String name) {
		String configured = System.getenv(environmentVariable);
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		return Files.isExecutable(Path.of(installedPath)) ? installedPath : name;
	}

	/**
	 * Prepares the server's directory before its first start (creates a database cluster, say);
	 * nothing by default. Restarts reuse what it prepared.
	 */
	protected void prepareDirectory() {
	}

	/**
	 * Runs a preparing command (creating a data directory, say) in this server's directory and
	 * waits for it to finish, its output appended to a log file there.
	 * @param command the command
	 * @throws IllegalStateException when it fails, with its output
	 */
	protected void prepare(List<String> command) {
		Path log = this.directory.path().resolve(this.name + "-prepare.log");
		try {
			Process process = new ProcessBuilder(command).directory(this.directory.path().toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			if (process.waitFor() != 0) {
				throw new IllegalStateException(command + " failed: " + Files.readString(log));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	/**
	 * What to do when the server's binary could not be run: where it is looked for and how to get it.
	 * @return the hint, or {@code null} for none
	 */
	protected String installHint() {
		return null;
	}

	/**
	 * How long the server may take to accept connections.
	 * @return the start-up timeout
	 */
	protected Duration startupTimeout() {
		return Duration.ofSeconds(20);
	}

	/**
	 * Starts the server and waits until it accepts connections.
	 * @return this
	 */
	public synchronized ServerProcess start() {
		if (this.process != null && this.process.isAlive()) {
			return this;
		}
		if (!this.prepared) {
			prepareDirectory();
			this.prepared = true;
		}
		try {
			this.process = new ProcessBuilder(command()).directory(this.directory.path().toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.path().resolve(this.name + ".log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + this.name + " with " + command() + " ("
					+ ex.getMessage() + ")" + ((installHint() != null) ? ": " + installHint() : ""), ex);
		}
		awaitListening();
		return this;
	}

	/** Stops the server gracefully (SIGTERM) and waits for it to exit. */
	public synchronized void stop() {
		if (this.process != null) {
			List<ProcessHandle> descendants = this.process.descendants().toList();
			this.process.destroy();
			descendants.forEach(ProcessHandle::destroy);
			awaitExit(descendants);
		}
	}

	/** Kills the server without warning (SIGKILL), as a crash would. */
	public synchronized void kill() {
		if (this.process != null) {
			List<ProcessHandle> descendants = this.process.descendants().toList();
			descendants.forEach(ProcessHandle::destroyForcibly);
			this.process.destroyForcibly();
			awaitExit(descendants);
		}
	}

	/**
	 * Freezes the server (SIGSTOP), with its descendants (a launcher script's JVM): its connections
	 * stay open but nothing is read or answered, as in a TCP stall. {@link #resume()} lets it carry
	 * on with what clients sent meanwhile.
	 */
	public synchronized void pause() {
		signal("STOP");
		awaitStopped();
	}

	/**
	 * Waits until every thread of the server and its descendants is stopped ({@code T} in
	 * {@code /proc/<pid>/task/<tid>/stat}): {@code kill} returns once the signal is queued, and on a
	 * busy machine one thread of the server may go on reading and answering for a while before the
	 * group stop reaches it, which answered a publish the test meant to leave unanswered. A thread
	 * that exited counts as stopped.
	 */
	private void awaitStopped() {
		List<Long> pids = new ArrayList<>(List.of(this.process.pid()));
		this.process.descendants().forEach((descendant) -> pids.add(descendant.pid()));
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!pids.stream().allMatch(ServerProcess::allThreadsStopped)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(this.name + " did not stop within 10 s of SIGSTOP");
			}
			Thread.onSpinWait();
		}
	}

	private static boolean allThreadsStopped(long pid) {
		try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
			return tasks.allMatch((task) -> "TtZX".indexOf(threadState(task)) >= 0);
		}
		catch (IOException ex) {
			return true;
		}
	}

	/** The state letter in {@code stat}, after the command name in parentheses; 'T' when unreadable (gone). */
	private static char threadState(Path task) {
		try {
			String stat = Files.readString(task.resolve("stat"));
			return stat.charAt(stat.lastIndexOf(')') + 2);
		}
		catch (IOException ex) {
			return 'T';
		}
	}

	/** Lets a {@link #pause() paused} server and its descendants carry on (SIGCONT). */
	public synchronized void resume() {
		signal("CONT");
	}

	/** Kills the server and starts it again on the same port and directory. */
	public synchronized void restart() {
		kill();
		start();
	}

	/**
	 * CPU time the running server and its child processes have used so far (what the kernel
	 * reports through {@link ProcessHandle.Info#totalCpuDuration()}).
	 * @return the CPU time, zero when not running or not reported
	 */
	public synchronized Duration cpuTime() {
		if (this.process == null || !this.process.isAlive()) {
			return Duration.ZERO;
		}
		Duration total = this.process.info().totalCpuDuration().orElse(Duration.ZERO);
		for (ProcessHandle child : this.process.descendants().toList()) {
			total = total.plus(child.info().totalCpuDuration().orElse(Duration.ZERO));
		}
		return total;
	}

	/**
	 * The port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * The server's own temporary directory.
	 * @return the directory
	 */
	public Path directory() {
		return this.directory.path();
	}

	/**
	 * Kills the server and deletes its directory (unless kept for debugging, see above); it cannot be
	 * started again.
	 */
	@Override
	public synchronized void close() {
		kill();
		this.directory.delete();
		try {
			Runtime.getRuntime().removeShutdownHook(this.onExit);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: this is the hook
		}
	}

	private void signal(String signal) {
		if (this.process == null || !this.process.isAlive()) {
			throw new IllegalStateException(this.name + " is not running");
		}
		List<String> command = new ArrayList<>(List.of("kill", "-" + signal, Long.toString(this.process.pid())));
		this.process.descendants().forEach((descendant) -> command.add(Long.toString(descendant.pid())));
		try {
			Process kill = new ProcessBuilder(command).start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + this.name, ex);
		}
	}

	private void awaitListening() {
		long deadline = System.nanoTime() + startupTimeout().toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.name + " exited at start-up; see " + this.directory.path());
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 200);
				return;
			}
			catch (IOException ex) {
				sleep(50);
			}
		}
		throw new IllegalStateException(this.name + " did not listen on port " + this.port + " within "
				+ startupTimeout() + "; see " + this.directory.path());
	}

	private void awaitExit(List<ProcessHandle> descendants) {
		try {
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
			for (ProcessHandle descendant : descendants) {
				descendant.onExit().get(20, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			descendants.forEach(ProcessHandle::destroyForcibly);
		}
	}

	/**
	 * Sleeps while waiting for a server.
	 * @param millis how long
	 * @throws IllegalStateException when interrupted (the interrupt flag is restored)
	 */
	protected static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a server", ex);
		}
	}

}
