package dev.exactlyonce.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.MetaDataAccessException;

import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.test.ServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

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

	@Test
	void aScanHandsRecordsOnWhileTheServerStillHoldsTheRestOfTheResult() throws MetaDataAccessException {
		JdbcRecordTable table = new JdbcRecordTable("scanned_in_pages", JdbcDialect.of(dataSource()));
		table.createIfMissing(dataSource());
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource(), table, LONG_TTL);
		int records = 1200;
		for (int i = 0; i < records; i++) {
			store.tryClaim("paged-" + i, "worker-1", Duration.ofMinutes(1));
		}
		JdbcTemplate observer = new JdbcTemplate(dataSource());
		List<String> scanStates = new ArrayList<>();
		AtomicInteger scanned = new AtomicInteger();

		store.scan((record) -> {
			if (scanned.incrementAndGet() == 1) {
				// on another thread: this one's queries would join the scan's transaction
				scanStates.addAll(CompletableFuture
					.supplyAsync(() -> observer.queryForList("SELECT state FROM pg_stat_activity WHERE query LIKE "
							+ "'SELECT%FROM scanned_in_pages%' AND pid <> pg_backend_pid()", String.class))
					.join());
			}
		});

		assertThat(scanned).hasValue(records);
		assertThat(scanStates).as("the scan's session, with the rest of its result on the server")
			.containsExactly("idle in transaction");
	}

}
