package dev.exactlyonce.store.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.MetaDataAccessException;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.JournalSteps;
import dev.exactlyonce.store.StoreKeyEncoder;
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

	/** The insert returns the row it inserted. */
	@Override
	protected int claimStatements() {
		return 1;
	}

	/** The record's locking read (with the step row's position), then the step row's write and the record's in one. */
	@Override
	protected int stepWriteStatements() {
		return 2;
	}

	/** As a single step's: the record's locking read, then every step row's write and the record's in one. */
	@Override
	protected int stepsWriteStatements(int rows) {
		return 2;
	}

	@Override
	protected String user() {
		return "postgres";
	}

	/**
	 * A step's statements as the driver runs them once they are server-prepared (PostgreSQL's generic
	 * plan, made while the table was never analyzed) reach the step's row through an index condition,
	 * never by filtering the record's rows: a step then costs the same at step 10,000 as at step 1.
	 * An update by position had the planner pick the name index and filter every row of the record.
	 */
	@Test
	void aStepsStatementsUnderGenericPlansFindItsRowThroughAnIndexNotAFilter() throws MetaDataAccessException {
		JdbcRecordTable table = new JdbcRecordTable("generic_plans", JdbcDialect.of(dataSource()));
		table.createIfMissing(dataSource());
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource(), table, LONG_TTL);
		Claim claim = JournalSteps.acquire(store, "planned", "worker-1", Duration.ofMinutes(1));
		for (int step = 1; step <= 300; step++) {
			JournalSteps.journal(store, claim, "step-" + step, JournalSteps.RESULT);
		}
		String recordKey = "'" + new StoreKeyEncoder(255).encode("planned") + "'";
		String digest = "'" + "0".repeat(64) + "'";

		new JdbcTemplate(dataSource()).execute((ConnectionCallback<Void>) (connection) -> {
			try (Statement sql = connection.createStatement()) {
				sql.execute("SET plan_cache_mode = force_generic_plan");
				connection.setAutoCommit(false);
				sql.execute("PREPARE lock_for_step AS " + numbered(table.selectForSteps(1)));
				assertFoundThroughTheNameIndex(explain(sql, "EXECUTE lock_for_step(" + digest + ", " + recordKey + ")"));
				sql.execute("PREPARE lock_for_steps AS " + numbered(table.selectForSteps(2)));
				assertFoundThroughTheNameIndex(
						explain(sql, "EXECUTE lock_for_steps(" + digest + ", " + digest + ", " + recordKey + ")"));
				sql.execute("PREPARE update_step AS " + numbered(table.updateStep()));
				assertFoundThroughTheNameIndex(explain(sql, "EXECUTE update_step('{}', " + recordKey + ", '1')"));
				connection.rollback();
				connection.setAutoCommit(true);
				sql.execute("DEALLOCATE ALL");
				sql.execute("RESET plan_cache_mode");
				return null;
			}
		});
	}

	/**
	 * The step's row is reached through the name index, and no rows are filtered on the way; the
	 * record's locking read joins it with a filter on the record key, which only checks the one row
	 * each side's index found.
	 */
	private static void assertFoundThroughTheNameIndex(String plan) {
		assertThat(plan).contains("generic_plans_step_name").contains("name_digest = ");
		assertThat(plan.lines().filter((line) -> line.contains("Filter") && !line.contains("Join Filter: ")))
			.as("lines of a filter in %s", plan)
			.isEmpty();
	}

	private static String numbered(String statement) {
		StringBuilder numbered = new StringBuilder();
		int parameter = 0;
		for (char c : statement.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++parameter) : String.valueOf(c));
		}
		return numbered.toString();
	}

	private static String explain(Statement sql, String execute) throws SQLException {
		StringBuilder plan = new StringBuilder();
		try (ResultSet lines = sql.executeQuery("EXPLAIN (ANALYZE) " + execute)) {
			while (lines.next()) {
				plan.append(lines.getString(1)).append('\n');
			}
		}
		return plan.toString();
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
