package dev.exactlyonce.test;

import java.nio.file.Path;
import java.util.List;

/**
 * A MariaDB server ({@code mariadbd}) on a free loopback port, its data directory created by
 * {@code mariadb-install-db} in its own temporary directory on first start, its unix socket in that
 * directory too. It reads no option file ({@code --no-defaults}), keeps its buffers small, and skips
 * the grant tables, so any user connects without a password. The binaries are
 * {@code $MARIADB_BIN_DIR/mariadbd} and {@code mariadb-install-db}, else Debian's
 * ({@code mariadb-server} package). Never the machine's own server on 3306.
 */
public class MariaDbServerProcess extends ServerProcess {

	/** Creates the handle; call {@link #start()}. */
	public MariaDbServerProcess() {
		super("mariadbd");
	}

	@Override
	protected List<String> command() {
		return List.of(binary("/usr/sbin", "mariadbd"), "--no-defaults", "--datadir=" + dataDirectory(),
				"--port=" + port(), "--bind-address=127.0.0.1", "--socket=" + directory().resolve("mariadbd.sock"),
				"--pid-file=" + directory().resolve("mariadbd.pid"), "--user=root", "--skip-grant-tables",
				"--skip-name-resolve", "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M",
				"--performance-schema=OFF", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin");
	}

	@Override
	public synchronized MariaDbServerProcess start() {
		super.start();
		return this;
	}

	/**
	 * The JDBC URL of a database {@code exactlyonce}, created by the driver on the first connection.
	 * @return the URL, for any user without a password
	 */
	public String jdbcUrl() {
		return "jdbc:mariadb://127.0.0.1:" + port() + "/exactlyonce?createDatabaseIfNotExist=true";
	}

	private Path dataDirectory() {
		return directory().resolve("data");
	}

	@Override
	protected void prepareDirectory() {
		prepare(List.of(binary("/usr/bin", "mariadb-install-db"), "--no-defaults", "--datadir=" + dataDirectory(),
				"--user=root", "--auth-root-authentication-method=normal", "--skip-test-db"));
	}

	private static String binary(String installedDirectory, String name) {
		String directory = System.getenv("MARIADB_BIN_DIR");
		return Path.of((directory != null && !directory.isBlank()) ? directory : installedDirectory, name).toString();
	}

}
