package dev.exactlyonce.faults;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.exactlyonce.test.PostgresServerProcess;

/**
 * The PostgreSQL of a {@code --store=jdbc} suite: one server with fsync on, started by the driver
 * on a free port, shared by the suite's rows (their task ids differ). The consumers run the sample's
 * {@code jdbc} profile on it: the JDBC store, and the marketing agent's post as a row of
 * {@code posts} written in the transaction of its completion record, which the driver counts.
 */
final class PostgresDatabase implements AutoCloseable {

	/** The {@code --store} value that selects it. */
	static final String STORE_TYPE = "jdbc";

	private final PostgresServerProcess server = new PostgresServerProcess(true).start();

	/** The consumers' properties: the {@code jdbc} profile on this server. */
	Map<String, String> consumerProperties() {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.profiles.active", "jdbc");
		properties.put("spring.datasource.url", this.server.jdbcUrl());
		properties.put("spring.datasource.username", this.server.user());
		return properties;
	}

	/**
	 * Creates the store's table and {@code posts} once, with one app JVM that exits after its
	 * start-up, so the consumers of a row do not race to create them.
	 * @param launcher starts the app
	 * @param natsUrl a NATS the app can connect to
	 * @param workDir where its output goes
	 */
	void createTables(SampleAppLauncher launcher, String natsUrl, Path workDir) {
		Map<String, String> properties = new LinkedHashMap<>(consumerProperties());
		properties.put("exactlyonce.nats.servers", natsUrl);
		properties.put("spring.main.web-application-type", "none");
		properties.put("sample.output-dir", workDir.resolve("schema").toString());
		Path output = workDir.resolve("schema.log");
		if (launcher.runUntilRefreshed(properties, output) != 0) {
			throw new IllegalStateException("The sample app could not create its tables on PostgreSQL "
					+ this.server.jdbcUrl() + " (see " + output + ")");
		}
	}

	/**
	 * Counts the rows of {@code posts} per task of a row.
	 * @param prefix the row's task-id prefix
	 * @return rows per task id
	 */
	PostRows posts(String prefix) {
		try (Connection connection = DriverManager.getConnection(this.server.jdbcUrl(), this.server.user(), "");
				PreparedStatement query = connection
					.prepareStatement("SELECT task_id, COUNT(*) FROM posts WHERE task_id LIKE ? GROUP BY task_id")) {
			query.setString(1, prefix + "-%");
			Map<String, Integer> rows = new LinkedHashMap<>();
			try (ResultSet result = query.executeQuery()) {
				while (result.next()) {
					rows.put(result.getString(1), result.getInt(2));
				}
			}
			return new PostRows(rows, true);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not count the rows of posts in " + this.server.jdbcUrl(), ex);
		}
	}

	@Override
	public String toString() {
		return "PostgreSQL " + this.server.jdbcUrl() + " (fsync on)";
	}

	@Override
	public void close() {
		this.server.close();
	}

}
