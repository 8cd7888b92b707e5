package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server ({@code postgres} in the foreground) on a free loopback port, its cluster
 * created by {@code initdb} in its own temporary directory on first start (trust authentication,
 * user {@code postgres}, UTF-8), its unix socket in that directory too. When the JVM runs as root,
 * both run as the {@code postgres} user (PostgreSQL refuses root), who then owns the directory.
 * The binaries are those of {@code $POSTGRES_BIN_DIR}, else {@code /usr/lib/postgresql/15/bin}
 * (Debian's {@code postgresql} package). Never the machine's own server on 5432.
 */
public class PostgresServerProcess extends ServerProcess {

	private static final String SERVER_USER = "postgres";

	private final boolean fsync;

	/** Creates the handle of a server that does not fsync (a test's data need not survive the machine); call {@link #start()}. */
	public PostgresServerProcess() {
		this(false);
	}

	/**
	 * Creates the handle; call {@link #start()}.
	 * @param fsync whether commits are flushed to disk, as in production (for benchmarks)
	 */
	public PostgresServerProcess(boolean fsync) {
		super("postgres");
		this.fsync = fsync;
	}

	@Override
	protected List<String> command() {
		return asServerUser(binary("postgres"), "-D", dataDirectory().toString(), "-p", Integer.toString(port()), "-k",
				directory().toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=" + (this.fsync ? "on" : "off"), "-c",
				"max_connections=100");
	}

	/**
	 * Starts the server and waits until it accepts sessions: PostgreSQL listens before it has
	 * finished starting up, and refuses connections until then ("the database system is starting
	 * up"), so the open port is not enough.
	 * @return this
	 */
	@Override
	public synchronized PostgresServerProcess start() {
		super.start();
		long deadline = System.nanoTime() + startupTimeout().toNanos();
		while (!acceptsSessions()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("PostgreSQL on port " + port() + " did not accept sessions within "
						+ startupTimeout() + "; see " + directory());
			}
			sleep(50);
		}
		return this;
	}

	private boolean acceptsSessions() {
		try {
			return new ProcessBuilder(binary("pg_isready"), "-q", "-h", "127.0.0.1", "-p", Integer.toString(port()),
					"-U", SERVER_USER).start().waitFor() == 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run pg_isready", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for PostgreSQL", ex);
		}
	}

	/**
	 * The JDBC URL of the {@code postgres} database.
	 * @return the URL, for user {@link #user()} without a password
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
	}

	/**
	 * The user to connect as.
	 * @return {@code postgres}
	 */
	public String user() {
		return SERVER_USER;
	}

	private Path dataDirectory() {
		return directory().resolve("data");
	}

	@Override
	protected void prepareDirectory() {
		if (isRoot()) {
			prepare(List.of("chown", "-R", SERVER_USER, directory().toString()));
		}
		prepare(asServerUser(binary("initdb"), "-D", dataDirectory().toString(), "-U", SERVER_USER, "--auth=trust",
				"-E", "UTF8", "--locale=C", "--no-sync"));
	}

	private static List<String> asServerUser(String... command) {
		List<String> full = new ArrayList<>();
		if (isRoot()) {
			full.addAll(List.of("runuser", "-u", SERVER_USER, "--"));
		}
		full.addAll(List.of(command));
		return full;
	}

	private static String binary(String name) {
		String directory = System.getenv("POSTGRES_BIN_DIR");
		return Path.of((directory != null && !directory.isBlank()) ? directory : "/usr/lib/postgresql/15/bin", name)
			.toString();
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

}
