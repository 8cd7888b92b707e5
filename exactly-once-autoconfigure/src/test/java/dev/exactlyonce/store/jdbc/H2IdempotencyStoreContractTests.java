package dev.exactlyonce.store.jdbc;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.AbstractIdempotencyStoreContractTests;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * The store contract against {@link JdbcIdempotencyStore} on an in-memory H2 database.
 */
class H2IdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	private final AtomicInteger tables = new AtomicInteger();

	private HikariDataSource dataSource;

	@Override
	protected void startInfrastructure() {
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl("jdbc:h2:mem:contract;DB_CLOSE_DELAY=-1");
		this.dataSource.setMaximumPoolSize(20);
	}

	@Override
	protected void stopInfrastructure() {
		this.dataSource.close();
	}

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) {
		JdbcRecordTable table = new JdbcRecordTable("contract_" + this.tables.incrementAndGet(), JdbcDialect.H2);
		table.createIfMissing(this.dataSource);
		return new JdbcIdempotencyStore(this.dataSource, table, completedTtl);
	}

	@Test
	void aDuplicateClaimRunsNoStatementOnTheStepTable() {
		JdbcRecordTable table = new JdbcRecordTable("counted_" + this.tables.incrementAndGet(), JdbcDialect.H2);
		table.createIfMissing(this.dataSource);
		StatementCounter stepStatements = new StatementCounter(table.stepTableName());

		assertADuplicateClaimReadsNoJournalEntry(
				new JdbcIdempotencyStore(stepStatements.counting(this.dataSource), table, LONG_TTL), stepStatements::count);
	}

}
