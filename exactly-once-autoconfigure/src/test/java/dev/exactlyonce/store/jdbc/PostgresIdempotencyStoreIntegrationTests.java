package dev.exactlyonce.store.jdbc;

import java.time.Duration;

import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.test.ServerProcess;

/**
 * The store contract against {@link JdbcIdempotencyStore} on a real PostgreSQL server.
 */
class PostgresIdempotencyStoreIntegrationTests extends AbstractJdbcIdempotencyStoreContractTests {

	@Override
	protected ServerProcess startServer() {
		return new PostgresServerProcess().start();
	}

	@Override
	protected String jdbcUrl(int port, Duration socketTimeout) {
		return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2&socketTimeout="
				+ socketTimeout.toSeconds();
	}

	@Override
	protected String user() {
		return "postgres";
	}

}
