package dev.exactlyonce.store.jdbc;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.support.MetaDataAccessException;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract against {@link JdbcIdempotencyStore} on a real database server, through a
 * HikariCP pool as an application would have; each store gets a table of its own.
 */
abstract class AbstractJdbcIdempotencyStoreContractTests extends AbstractRemoteIdempotencyStoreContractTests {

	private final AtomicInteger tables = new AtomicInteger();

	private ServerProcess server;

	private HikariDataSource dataSource;

	private HikariDataSource proxiedDataSource;

	/**
	 * Starts the database server.
	 * @return the running server
	 */
	protected abstract ServerProcess startServer();

	/**
	 * The JDBC URL of the test database on a port, with a socket timeout.
	 * @param port the server's port, or a proxy's
	 * @param socketTimeout how long the driver waits for an answer
	 * @return the URL
	 */
	protected abstract String jdbcUrl(int port, Duration socketTimeout);

	/**
	 * The user to connect as.
	 * @return the user
	 */
	protected abstract String user();

	@Override
	protected void startInfrastructure() {
		this.server = startServer();
		this.dataSource = pool(jdbcUrl(this.server.port(), Duration.ofSeconds(10)));
	}

	@Override
	protected void stopInfrastructure() {
		if (this.proxiedDataSource != null) {
			this.proxiedDataSource.close();
		}
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		this.server.close();
	}

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) throws MetaDataAccessException {
		return new JdbcIdempotencyStore(this.dataSource, newTable(), completedTtl);
	}

	@Override
	protected IdempotencyStore createStoreBehind(TcpProxy proxy) throws MetaDataAccessException {
		this.proxiedDataSource = pool(jdbcUrl(proxy.port(), CLIENT_TIMEOUT));
		return new JdbcIdempotencyStore(this.proxiedDataSource, newTable(), LONG_TTL);
	}

	@Test
	void purgeDeletesAtMostItsBatchOfExpiredRecordsAndKeepsLiveOnes() throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		JdbcIdempotencyStore expiring = new JdbcIdempotencyStore(this.dataSource, table, Duration.ZERO);
		JdbcIdempotencyStore keeping = new JdbcIdempotencyStore(this.dataSource, table, LONG_TTL);
		for (int i = 0; i < 5; i++) {
			expiring.tryClaim(uniqueKey("expired"), "worker", Duration.ofMinutes(1));
		}
		String live = uniqueKey("live");
		keeping.tryClaim(live, "worker", Duration.ofMinutes(1));

		JdbcRecordPurge purge = new JdbcRecordPurge(this.dataSource, table);

		assertThat(purge.purgeExpired(3)).isEqualTo(3);
		assertThat(purge.purgeExpired(3)).isEqualTo(2);
		assertThat(purge.purgeExpired(3)).isZero();
		assertThat(keeping.find(live)).isPresent();
	}

	@Override
	protected ServerProcess server() {
		return this.server;
	}

	/**
	 * The pool of the server's database (not through a proxy).
	 * @return the data source
	 */
	protected HikariDataSource dataSource() {
		return this.dataSource;
	}

	private JdbcRecordTable newTable() throws MetaDataAccessException {
		JdbcRecordTable table = new JdbcRecordTable("contract_" + this.tables.incrementAndGet(),
				JdbcDialect.of(this.dataSource));
		table.createIfMissing(this.dataSource);
		return table;
	}

	private HikariDataSource pool(String url) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		pool.setUsername(user());
		pool.setMaximumPoolSize(20);
		pool.setMinimumIdle(4);
		pool.setConnectionTimeout(2000);
		pool.setValidationTimeout(500);
		pool.setInitializationFailTimeout(-1);
		return pool;
	}

}
