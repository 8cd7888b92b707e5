package dev.exactlyonce.it;

import dev.exactlyonce.test.PostgresServerProcess;

/**
 * Durable waits on the JDBC store in PostgreSQL.
 */
class PostgresDurableWaitsIntegrationTests extends AbstractJdbcDurableWaitsIntegrationTests {

	private PostgresServerProcess postgres;

	@Override
	protected void startDatabase() {
		this.postgres = new PostgresServerProcess().start();
	}

	@Override
	protected void stopDatabase() {
		this.postgres.close();
	}

	@Override
	protected String jdbcUrl() {
		return this.postgres.jdbcUrl();
	}

	@Override
	protected String user() {
		return this.postgres.user();
	}

}
