package dev.exactlyonce.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Hands out the target's connections in auto-commit mode, so that every statement on them commits
 * on its own, also when the pool's default is {@code autoCommit=false}. Pools restore their default
 * when a connection is returned (HikariCP does).
 */
final class AutoCommitDataSource extends DelegatingDataSource {

	AutoCommitDataSource(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return autoCommit(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return autoCommit(super.getConnection(username, password));
	}

	private static Connection autoCommit(Connection connection) throws SQLException {
		if (!connection.getAutoCommit()) {
			connection.setAutoCommit(true);
		}
		return connection;
	}

}
