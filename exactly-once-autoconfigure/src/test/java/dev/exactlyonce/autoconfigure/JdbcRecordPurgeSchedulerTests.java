package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.store.jdbc.JdbcDialect;
import dev.exactlyonce.store.jdbc.JdbcIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcRecordPurge;
import dev.exactlyonce.store.jdbc.JdbcRecordTable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The purge of the JDBC store on an in-memory H2 database: bounded runs that delete only expired
 * records, and a failing run that does not throw (so its scheduled task is never cancelled).
 */
class JdbcRecordPurgeSchedulerTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private HikariDataSource dataSource;

	private JdbcRecordTable table;

	@BeforeEach
	void createTable() {
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.table = new JdbcRecordTable("purged_records", JdbcDialect.H2);
		this.table.createIfMissing(this.dataSource);
	}

	@AfterEach
	void closeDataSource() {
		this.dataSource.close();
	}

	@Test
	void eachRunDeletesAtMostTheBatchOfExpiredRecordsAndKeepsLiveOnes() {
		JdbcIdempotencyStore expiring = new JdbcIdempotencyStore(this.dataSource, this.table, Duration.ZERO);
		JdbcIdempotencyStore keeping = new JdbcIdempotencyStore(this.dataSource, this.table, Duration.ofHours(1));
		for (int i = 0; i < 5; i++) {
			expiring.tryClaim("expired-" + i, "worker", LEASE);
		}
		keeping.tryClaim("live-1", "worker", LEASE);
		keeping.tryClaim("live-2", "worker", LEASE);
		JdbcRecordPurgeScheduler purge = new JdbcRecordPurgeScheduler(new JdbcRecordPurge(this.dataSource, this.table),
				Duration.ofMinutes(1), 3);

		assertThat(purge.purgeOnce()).isEqualTo(3);
		assertThat(purge.purgeOnce()).isEqualTo(2);
		assertThat(purge.purgeOnce()).isZero();

		assertThat(new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM purged_records", Integer.class))
			.isEqualTo(2);
		assertThat(keeping.find("live-1")).isPresent();
	}

	@Test
	void aRunAgainstAnUnreachableDatabaseReportsNothingDeletedWithoutThrowing() {
		HikariDataSource broken = new HikariDataSource();
		broken.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID());
		broken.close();
		JdbcRecordPurgeScheduler failing = new JdbcRecordPurgeScheduler(new JdbcRecordPurge(broken, this.table),
				Duration.ofMinutes(1), 10);

		assertThat(failing.purgeOnce()).isZero();
	}

}
