package dev.exactlyonce.it;

import dev.exactlyonce.test.MariaDbServerProcess;

/**
 * Durable waits on the JDBC store in MariaDB.
 */
class MariaDbDurableWaitsIntegrationTests extends AbstractJdbcDurableWaitsIntegrationTests {

	private MariaDbServerProcess mariadb;

	@Override
	protected void startDatabase() {
		this.mariadb = new MariaDbServerProcess().start();
	}

	@Override
	protected void stopDatabase() {
		this.mariadb.close();
	}

	@Override
	protected String jdbcUrl() {
		return this.mariadb.jdbcUrl();
	}

	@Override
	protected String user() {
		return "root";
	}

}
