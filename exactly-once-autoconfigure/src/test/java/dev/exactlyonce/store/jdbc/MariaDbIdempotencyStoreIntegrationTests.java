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

	@Override
	protected String user() {
		return "root";
	}

}
