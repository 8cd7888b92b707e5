package dev.exactlyonce.store.jdbc;

import java.time.Duration;

import dev.exactlyonce.test.MariaDbServerProcess;
import dev.exactlyonce.test.ServerProcess;

/**
 * The store contract against {@link JdbcIdempotencyStore} on a real MariaDB server.
 */
class MariaDbIdempotencyStoreIntegrationTests extends AbstractJdbcIdempotencyStoreContractTests {

	@Override
	protected ServerProcess startServer() {
		return new MariaDbServerProcess().start();
	}

	@Override
	protected String jdbcUrl(int port, Duration socketTimeout) {
		return "jdbc:mariadb://127.0.0.1:" + port + "/exactlyonce?createDatabaseIfNotExist=true&connectTimeout=2000"
				+ "&socketTimeout=" + socketTimeout.toMillis();
	}

	/** The insert, then a read of the row's times (MySQL cannot return rows from an insert). */
	@Override
	protected int claimStatements() {
		return 2;
	}

	/** The record's locking read (with the step row's position), the step row's write, then the record's. */
	@Override
	protected int stepWriteStatements() {
		return 3;
	}

	/** The record's locking read (with the step rows' positions), a write per step row, then the record's. */
	@Override
	protected int stepsWriteStatements(int rows) {
		return 2 + rows;
	}

	@Override
	protected String user() {
		return "root";
	}

}
