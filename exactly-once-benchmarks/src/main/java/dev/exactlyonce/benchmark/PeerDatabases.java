package dev.exactlyonce.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import dev.exactlyonce.test.PostgresServerProcess;

/**
 * The PostgreSQL server {@link PeersBenchmark} shares between DBOS and the JDBC store, one database
 * each, with {@code pg_stat_statements} loaded: every statement the server executed, by database
 * (utility statements such as {@code BEGIN} and {@code COMMIT} included), so a row's statements
 * per task are counted by the server, not by either client.
 */
final class PeerDatabases extends PostgresServerProcess {

	PeerDatabases() {
		super(true);
	}

	@Override
	protected List<String> command() {
		List<String> command = new ArrayList<>(super.command());
		command.addAll(List.of("-c", "shared_preload_libraries=pg_stat_statements", "-c",
				"pg_stat_statements.track_utility=on"));
		return command;
	}

	/**
	 * Starts the server, creates the databases and the statistics view.
	 * @param databases the databases to create
	 * @return this
	 */
	PeerDatabases start(String... databases) throws SQLException {
		start();
		try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
			statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
			for (String database : databases) {
				statement.execute("CREATE DATABASE " + database);
			}
		}
		return this;
	}

	/**
	 * The JDBC URL of a database on a server.
	 * @param server the server
	 * @param database the database
	 * @return the URL
	 */
	static String url(PostgresServerProcess server, String database) {
		return server.jdbcUrl().replaceFirst("/postgres$", "/" + database);
	}

	/** Forgets the statements counted so far, in every database. */
	void resetStatements() throws SQLException {
		try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
			statement.execute("SELECT pg_stat_statements_reset()");
		}
	}

	/**
	 * The statements executed in a database since {@link #resetStatements()}.
	 * @param database the database
	 * @return the number of executions
	 */
	long statements(String database) throws SQLException {
		try (Connection connection = connect("postgres");
				PreparedStatement query = connection.prepareStatement("SELECT coalesce(sum(calls), 0) FROM "
						+ "pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?")) {
			query.setString(1, database);
			try (ResultSet result = query.executeQuery()) {
				result.next();
				return result.getLong(1);
			}
		}
	}

	/**
	 * The statements executed most often in a database since {@link #resetStatements()}.
	 * @param database the database
	 * @param tasks the tasks run meanwhile
	 * @return Markdown table lines: executions per task, mean ms, the statement (its first 100 characters)
	 */
	List<String> topStatements(String database, int tasks) throws SQLException {
		List<String> lines = new ArrayList<>();
		try (Connection connection = connect("postgres");
				PreparedStatement query = connection.prepareStatement("SELECT calls, mean_exec_time, "
						+ "regexp_replace(left(query, 100), '\\s+', ' ', 'g') FROM pg_stat_statements s "
						+ "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ? ORDER BY calls DESC LIMIT 12")) {
			query.setString(1, database);
			try (ResultSet result = query.executeQuery()) {
				while (result.next()) {
					lines.add(String.format(java.util.Locale.ROOT, "| %s | %.2f | %.3f | `%s` |", database,
							result.getLong(1) / (double) tasks, result.getDouble(2), result.getString(3).replace("|", "\\|")));
				}
			}
		}
		return lines;
	}

	private Connection connect(String database) throws SQLException {
		return DriverManager.getConnection(url(this, database), user(), "");
	}

}
