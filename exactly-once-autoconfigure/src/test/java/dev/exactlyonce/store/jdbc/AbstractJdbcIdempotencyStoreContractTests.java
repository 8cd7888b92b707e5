package dev.exactlyonce.store.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.transaction.support.TransactionTemplate;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.EarlierFormatJournal;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalSteps;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The store contract against {@link JdbcIdempotencyStore} on a real database server, through a
 * HikariCP pool as an application would have; each store gets a table of its own.
 */
abstract class AbstractJdbcIdempotencyStoreContractTests extends AbstractRemoteIdempotencyStoreContractTests {

	private static final int PROXIED_POOL_SIZE = 4;

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

	/**
	 * The statements a first claim of a key sends.
	 * @return the count
	 */
	protected abstract int claimStatements();

	/**
	 * The statements a step's write ({@code STARTED} or {@code DONE}) sends in its transaction, the
	 * commit not counted.
	 * @return the count
	 */
	protected abstract int stepWriteStatements();

	/**
	 * The statements a write of several entries sends in its transaction, the commit not counted.
	 * @param rows the step rows it writes
	 * @return the count
	 */
	protected abstract int stepsWriteStatements(int rows);

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
	protected IdempotencyStore createStoreBehind(TcpProxy proxy) throws MetaDataAccessException, SQLException {
		this.proxiedDataSource = pool(jdbcUrl(proxy.port(), CLIENT_TIMEOUT));
		this.proxiedDataSource.setMaximumPoolSize(PROXIED_POOL_SIZE);
		this.proxiedDataSource.setMinimumIdle(PROXIED_POOL_SIZE);
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(this.proxiedDataSource, newTable(), LONG_TTL);
		this.proxiedDataSource.getConnection().close();
		// a full pool opens no connection while a test holds the replies: only the store's own requests pass
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.proxiedDataSource.getHikariPoolMXBean().getTotalConnections() == PROXIED_POOL_SIZE);
		return store;
	}

	@Test
	void aDuplicateClaimRunsNoStatementOnTheStepTable() throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		StatementCounter stepStatements = new StatementCounter(table.stepTableName());

		assertADuplicateClaimReadsNoJournalEntry(
				new JdbcIdempotencyStore(stepStatements.counting(this.dataSource), table, LONG_TTL), stepStatements::count);
	}

	/**
	 * What a task of three steps asks of the database, counted between the store and the driver: its
	 * claim, each step's {@code STARTED} and {@code DONE} in a transaction of their own that locks
	 * the record, and its completion (docs/benchmarks.md has the statements).
	 */
	@Test
	void aTaskOfThreeStepsSendsItsClaimSixStepWritesInTransactionsOfTheirOwnAndItsCompletion()
			throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		// the step table's name starts with the record table's: both are counted
		StatementCounter counter = new StatementCounter(table.name());
		IdempotencyStore store = new JdbcIdempotencyStore(counter.counting(this.dataSource), table, LONG_TTL);

		Claim claim = JournalSteps.acquire(store, "task", "worker-1", Duration.ofMinutes(1));
		long claimed = counter.count();
		for (int step = 1; step <= 3; step++) {
			JournalSteps.journal(store, claim, "step" + step, JournalSteps.RESULT);
		}
		long stepped = counter.count() - claimed;
		store.complete(claim, Completion.completed("listener", 1, "done"));

		assertThat(claimed).as("statements of the claim").isEqualTo(claimStatements());
		assertThat(stepped).as("statements of 6 step writes").isEqualTo(6L * stepWriteStatements());
		assertThat(counter.count() - claimed - stepped).as("statements of the completion").isEqualTo(2);
		assertThat(counter.commits()).as("transactions: one per step write").isEqualTo(6);
		IdempotencyRecord record = store.find("task").orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("step1", StepState.DONE), tuple("step2", StepState.DONE),
					tuple("step3", StepState.DONE));
	}

	/**
	 * A step's {@code DONE} with the next step's {@code STARTED} in one write: one transaction that
	 * locks the record once and writes both rows (docs/benchmarks.md has the statements).
	 */
	@Test
	void aStepsDoneWithTheNextStepsStartedIsOneTransactionLockingTheRecordOnce() throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		StatementCounter counter = new StatementCounter(table.name());
		IdempotencyStore store = new JdbcIdempotencyStore(counter.counting(this.dataSource), table, LONG_TTL);
		Claim claim = JournalSteps.acquire(store, "task", "worker-1", Duration.ofMinutes(1));
		StepRecord first = StepRecord.started("step1", 1, "origin", Instant.now());
		store.recordStep(claim, first);
		long before = counter.count();
		long commitsBefore = counter.commits();

		store.recordSteps(claim, List.of(first.done(JournalSteps.RESULT, Instant.now()),
				StepRecord.started("step2", 1, "origin", Instant.now())));

		assertThat(counter.count() - before).as("statements of the write").isEqualTo(stepsWriteStatements(2));
		assertThat(counter.commits() - commitsBefore).as("transactions").isEqualTo(1);
		assertThat(store.find("task").orElseThrow().journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("step1", StepState.DONE), tuple("step2", StepState.STARTED));
	}

	@Test
	void insideAnApplicationTransactionClaimsCommitOnTheirOwnAndTheCompletionCommitsWithTheTransaction() {
		String key = uniqueKey("in-transaction");
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		IdempotencyStore store = store();

		transaction.executeWithoutResult((status) -> {
			Claim claim = ((ClaimResult.Acquired) store.tryClaim(key, "worker-1", Duration.ofMinutes(1))).claim();
			assertThat(runOutside(() -> store.tryClaim(key, "worker-2", Duration.ofMinutes(1))))
				.as("another instance sees the claim before the application's transaction ends")
				.isInstanceOf(ClaimResult.HeldElsewhere.class);
			store.complete(claim, Completion.completed("listener", 1, "done"));
			assertThat(runOutside(() -> store.find(key).orElseThrow().state()))
				.as("the completion is not visible before the commit")
				.isEqualTo(RecordState.IN_PROGRESS);
			status.setRollbackOnly();
		});

		IdempotencyRecord record = store.find(key).orElseThrow();
		assertThat(record.state()).as("the claim outlived the rolled-back transaction").isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.owner()).isEqualTo("worker-1");
	}

	@Test
	void aZombiesCompletionInsideAnApplicationTransactionFailsItAndLeavesTheRecord() {
		String key = uniqueKey("zombie-in-transaction");
		Claim zombie = ((ClaimResult.Acquired) store().tryClaim(key, "worker-1", Duration.ofMillis(200))).claim();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> store().tryClaim(key, "worker-2", Duration.ofMinutes(1)) instanceof ClaimResult.Acquired);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));

		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(() -> transaction.executeWithoutResult(
				(status) -> store().complete(zombie, Completion.completed("listener", 1, "zombie"))));

		IdempotencyRecord record = store().find(key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.owner()).isEqualTo("worker-2");
	}

	@Test
	void whatAScansActionWritesCommitsAtOnceAndOutlivesTheScansFailure() throws MetaDataAccessException {
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(this.dataSource, newTable(), LONG_TTL);
		Claim claim = ((ClaimResult.Acquired) store.tryClaim("completed-during-scan", "worker-1", Duration.ofMinutes(1)))
			.claim();
		store.tryClaim("scanned-next", "worker-1", Duration.ofMinutes(1));
		AtomicInteger handed = new AtomicInteger();
		AtomicReference<RecordState> seenByAnotherInstance = new AtomicReference<>();

		assertThatIllegalStateException().isThrownBy(() -> store.scan((record) -> {
			if (handed.incrementAndGet() == 1) {
				store.complete(claim, Completion.completed("listener", 1, "done"));
				seenByAnotherInstance.set(runOutside(() -> store.find(claim.key()).orElseThrow().state()));
				return;
			}
			throw new IllegalStateException("the action fails on the next record");
		})).withMessage("the action fails on the next record");

		assertThat(seenByAnotherInstance).hasValue(RecordState.COMPLETED);
		assertThat(store.find(claim.key()).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
	}

	/** Runs a call on another thread, which has no transaction: as another instance would see the store. */
	private <T> T runOutside(Callable<T> call) {
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			return other.submit(call).get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			other.shutdownNow();
		}
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

	@Test
	void aRecordOfTheEarlierFormatIsResumedAndAnEarlierReaderRefusesItOnceItsStepsMovedToRows()
			throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		IdempotencyStore store = new JdbcIdempotencyStore(this.dataSource, table, LONG_TTL);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		RecordCodec earlierFormat = new RecordCodec();
		Instant now = Instant.now();
		Claim earlier = ((ClaimResult.Acquired) store.tryClaim("task", "worker-0", Duration.ofMinutes(1))).claim();
		jdbc.update("UPDATE " + table.name() + " SET journal = ?, lease_until = 0",
				earlierFormat.encodeJournal(EarlierFormatJournal.journal(now)));

		EarlierFormatJournal.resume(store, "task", now);

		assertThatExceptionOfType(ClaimLostException.class).as("the attempt it took over, a zombie now")
			.isThrownBy(() -> store.recordStep(earlier, StepRecord.started("late", 1, "origin-1", Instant.now())));
		String journalColumn = jdbc.queryForObject("SELECT journal FROM " + table.name(), String.class);
		assertThatExceptionOfType(StoreUnavailableException.class)
			.as("an earlier version stays off a record whose steps it would not see")
			.isThrownBy(() -> earlierFormat.decodeJournal(journalColumn));
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table.stepTableName(), Integer.class)).isEqualTo(3);
	}

	@Test
	void aStepJournaledInAnApplicationTransactionThatRollsBackLeavesNoRow() throws MetaDataAccessException {
		JdbcRecordTable table = newTable();
		IdempotencyStore store = new JdbcIdempotencyStore(this.dataSource, table, LONG_TTL);
		Claim claim = ((ClaimResult.Acquired) store.tryClaim("task", "worker-1", Duration.ofMinutes(1))).claim();
		StepRecord draft = StepRecord.started("draft", 1, "origin", Instant.now());
		store.recordStep(claim, draft);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));

		transaction.executeWithoutResult((status) -> {
			store.recordStepWithTransaction(claim, draft.done("\"draft\"", Instant.now()));
			store.recordStepWithTransaction(claim, StepRecord.started("commit", 1, "origin", Instant.now()));
			status.setRollbackOnly();
		});
		store.recordStep(claim, StepRecord.started("publish", 1, "origin", Instant.now()));

		assertThat(store.find("task").orElseThrow().journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.STARTED), tuple("publish", StepState.STARTED));
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
