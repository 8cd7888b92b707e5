package dev.exactlyonce.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.LandedWrites;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.store.UnconfirmedClaims;

/**
 * An {@link IdempotencyStore} in a relational database (PostgreSQL, MariaDB/MySQL, H2), one row per
 * key in a table of {@link JdbcRecordTable}'s shape.
 * <p>
 * Every transition reads the row together with the database's clock and writes it back with a
 * compare-and-set {@code UPDATE … WHERE record_key = ? AND token = ? AND version = ?} (a fresh key
 * with an {@code INSERT} that the primary key lets only one claimant win); a write that matched no
 * row is decided again on a fresh read, and fails with {@link ClaimLostException} once the token is
 * not the caller's. Lease expiry and record expiry are decided by the database's clock, never the
 * instances' ({@link ClaimRules} over a clock fixed at the read). Claims, renewals, releases, steps,
 * duplicate notes, operators' actions and reads run on a connection of their own in auto-commit
 * mode, outside any transaction the caller has open, so other instances see them at once. A
 * completion called inside a transaction on this store's {@code DataSource} is written in that
 * transaction: it commits with the caller's writes or not at all, and a zombie's completion,
 * matching no row, fails it. A write whose answer was lost is recognised by reading it back
 * ({@link LandedWrites}, {@link UnconfirmedClaims}). Records are given with the database's times,
 * as they are.
 */
public class JdbcIdempotencyStore implements IdempotencyStore, RecordScanner {

	/** The largest step journal a record keeps, in bytes of JSON (below MariaDB's default packet size). */
	static final int MAX_JOURNAL_BYTES = 8 * 1024 * 1024;

	private static final int KEY_LENGTH = 255;

	/** Rows a scan has the driver fetch at a time, so it never holds the whole table. */
	private static final int SCAN_FETCH_SIZE = 500;

	/** Writes that lost a race to another writer of the same row before the caller gives up. */
	private static final int MAX_CONFLICTS = 50;

	private final DataSource dataSource;

	private final JdbcRecordTable table;

	private final Duration completedTtl;

	private final JdbcTemplate ownConnections;

	private final JdbcTemplate callersTransaction;

	private final TransactionTemplate outsideTransactions;

	private final TransactionTemplate stepTransactions;

	private final JdbcStepJournal steps;

	private final StoreKeyEncoder keys = new StoreKeyEncoder(KEY_LENGTH);

	private final RecordCodec codec = new RecordCodec();

	private final UnconfirmedClaims unconfirmedClaims = new UnconfirmedClaims();

	/**
	 * Creates the store; the table must exist (see {@link JdbcRecordTable#ddl()}).
	 * @param dataSource the application's data source
	 * @param table the table
	 * @param completedTtl how long records are kept after their last write
	 */
	public JdbcIdempotencyStore(DataSource dataSource, JdbcRecordTable table, Duration completedTtl) {
		this.dataSource = dataSource;
		this.table = table;
		this.completedTtl = completedTtl;
		this.ownConnections = new JdbcTemplate(new AutoCommitDataSource(dataSource));
		this.callersTransaction = new JdbcTemplate(dataSource);
		this.outsideTransactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.outsideTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
		this.stepTransactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.stepTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.steps = new JdbcStepJournal(table);
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		String token = this.unconfirmedClaims.token(key, owner);
		return this.unconfirmedClaims.claim(key, owner, token,
				() -> outside("claim", () -> claim(key, owner, lease, token)), () -> readBack(key));
	}

	/**
	 * Claims a key: a key without a row is inserted first (so a claim whose answer is lost has
	 * landed, and is found by its token), returning its times (read back where the database cannot
	 * return rows from an insert); a key with a row is decided by the claim rules on the row without
	 * its step rows (read only for a takeover) and written as a compare-and-set.
	 */
	private ClaimResult claim(String key, String owner, Duration lease, String token) {
		IdempotencyRecord inserted = insertFirstClaim(key, owner, lease, token);
		if (inserted != null && LandedWrites.claimOf(owner, token).test(inserted)) {
			return ClaimResult.Acquired.of(inserted);
		}
		for (int conflict = 0; conflict < MAX_CONFLICTS; conflict++) {
			JdbcRecordRow row = read(this.ownConnections, key);
			ClaimDecision decision = rules(row).claim(row.record(), key, owner, lease, token);
			if (decision.needsWholeJournal() && row.stepRows() > 0) {
				// a takeover resumes the whole journal; no other answer carries it
				row = readWhole(this.ownConnections, key);
				decision = rules(row).claim(row.record(), key, owner, lease, token);
			}
			if (!decision.requiresWrite()
					|| write(this.ownConnections, row, decision.toWrite(), decision.keepsJournal())) {
				return decision.result();
			}
		}
		throw contended(key);
	}

	/**
	 * Inserts a first claim of a key: the record inserted, read back where the insert cannot return
	 * it, or {@code null} when the key has a row.
	 */
	private IdempotencyRecord insertFirstClaim(String key, String owner, Duration lease, String token) {
		Object[] parameters = { this.keys.encode(key), key.getBytes(StandardCharsets.UTF_8), owner, token,
				lease.toMillis(), this.completedTtl.toMillis() };
		if (this.table.dialect().writesWithReturning()) {
			return this.ownConnections.query(this.table.insertClaimReturning(),
					(rs) -> rs.next() ? JdbcRecordRow.read(rs).record() : null, parameters);
		}
		try {
			if (this.ownConnections.update(this.table.insertClaim(), parameters) != 1) {
				return null;
			}
		}
		catch (DuplicateKeyException ex) {
			return null;
		}
		return readWhole(this.ownConnections, key).record();
	}

	@Override
	public Claim renew(Claim claim, Duration lease) {
		IdempotencyRecord renewed = LandedWrites.write(
				() -> transitionOutside(claim, (rules, current) -> rules.renew(current, claim, lease)),
				() -> readBack(claim.key()), LandedWrites.renewalOf(claim));
		return claim.withLeaseUntil(renewed.leaseUntil());
	}

	/**
	 * Writes the completion record: inside the caller's transaction when one is active on this
	 * store's {@code DataSource} (it then commits or rolls back with the caller's writes, and a
	 * failure is the transaction's: no read-back), else on a connection of its own.
	 */
	@Override
	public IdempotencyRecord complete(Claim claim, Completion completion) {
		BiFunction<ClaimRules, IdempotencyRecord, IdempotencyRecord> change = (rules, current) -> rules
			.complete(current, claim, completion);
		if (inCallersTransaction()) {
			return translated("complete", () -> transition(this.callersTransaction, claim.key(), change, true));
		}
		return LandedWrites.write(() -> transitionOutside(claim, change), () -> readBack(claim.key()),
				LandedWrites.completionOf(claim, completion));
	}

	@Override
	public void release(Claim claim, String failure) {
		LandedWrites.write(() -> transitionOutside(claim, (rules, current) -> rules.release(current, claim, failure)),
				() -> readBack(claim.key()), LandedWrites.releaseOf(claim));
	}

	/**
	 * Writes the step's row and the record in a transaction of their own, on a connection of their
	 * own, holding the record's row lock: one row whatever the journal's length.
	 */
	@Override
	public void recordStep(Claim claim, StepRecord step) {
		recordSteps(claim, List.of(step));
	}

	/**
	 * Writes the steps' rows and the record in one transaction of their own, on a connection of their
	 * own, locking the record's row and checking the claim once: on PostgreSQL the statements of one
	 * step, the rows written with the record in one statement.
	 */
	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		translated("write", () -> this.stepTransactions.execute((status) -> {
			journal(this.callersTransaction, claim, steps);
			return null;
		}));
	}

	/**
	 * Journals a step inside the caller's transaction when one is active on this store's
	 * {@code DataSource} (it then commits or rolls back with the writes it stands for, and locks the
	 * record's row until then), else at once on a connection of its own.
	 */
	@Override
	public void recordStepWithTransaction(Claim claim, StepRecord step) {
		if (!inCallersTransaction()) {
			recordStep(claim, step);
			return;
		}
		translated("write", () -> {
			journal(this.callersTransaction, claim, List.of(step));
			return null;
		});
	}

	/**
	 * Journals steps in the transaction {@code jdbc} runs in: locks the record's row (reading the
	 * steps' row positions with it), checks the claim, writes the steps' rows and the record's
	 * journal column; three statements on PostgreSQL with {@code BEGIN} however many steps, three
	 * and one per step elsewhere.
	 */
	private void journal(JdbcTemplate jdbc, Claim claim, List<StepRecord> steps) {
		String recordKey = this.keys.encode(claim.key());
		JdbcStepJournal.Locked locked = this.steps.lock(jdbc, recordKey, steps);
		if (locked == null) {
			throw new ClaimLostException(claim.key(), claim.token());
		}
		rules(locked.row()).recordSteps(locked.row().record(), claim, steps);
		this.steps.write(jdbc, recordKey, locked, steps);
	}

	/** One compare-and-set of the row, none when the key has no final record or the copy is noted already. */
	@Override
	public void recordDuplicate(String key, long streamSequence) {
		outside("write", () -> transition(this.ownConnections, key,
				(rules, current) -> rules.noteDuplicate(current, streamSequence), true));
	}

	/**
	 * A compare-and-set of the row on its token and version, on a connection of its own; the record
	 * written has the database's times, as {@link #find} gives them.
	 */
	@Override
	public IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action) {
		return outside("write", () -> transition(this.ownConnections, key,
				(rules, current) -> rules.applyOperatorAction(current, key, expectedToken, action),
				ClaimRules.keepsJournal(action)));
	}

	@Override
	public Optional<IdempotencyRecord> find(String key) {
		return Optional.ofNullable(readBack(key));
	}

	/** The record's row alone, with one query: its step rows are not read. */
	@Override
	public Optional<IdempotencyRecord> findWithoutJournal(String key) {
		return Optional.ofNullable(outside("read", () -> {
			JdbcRecordRow row = read(this.ownConnections, key);
			return (row.record() != null && row.record().expiresAt().isAfter(row.now()))
					? row.record().withJournal(StepJournal.EMPTY) : null;
		}));
	}

	/**
	 * Reads the records that have not expired, by the database's clock, in one query whose rows the
	 * driver fetches {@value #SCAN_FETCH_SIZE} at a time. The query runs in a transaction, rolled back
	 * at the end, because PostgreSQL's driver reads the whole result before the first row outside
	 * one; on a connection of its own that no transaction of Spring's knows, so what {@code action}
	 * writes, through this store or otherwise, commits as it would anywhere else, not with the scan.
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(false);
			try {
				readAll(connection, action);
			}
			finally {
				connection.rollback();
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new StoreUnavailableException("JDBC scan on table " + this.table.name() + " failed: "
					+ ex.getMessage(), ex);
		}
	}

	private void readAll(Connection connection, Consumer<IdempotencyRecord> action) throws SQLException {
		try (PreparedStatement query = connection.prepareStatement(this.table.scan())) {
			query.setFetchSize(SCAN_FETCH_SIZE);
			try (ResultSet rows = query.executeQuery()) {
				while (rows.next()) {
					action.accept(JdbcRecordRow.read(rows).record());
				}
			}
		}
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/** Whether the caller has a transaction open on this store's {@code DataSource}. */
	private boolean inCallersTransaction() {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.dataSource);
	}

	/** The record of a key that has not expired, read on a connection of its own. */
	private IdempotencyRecord readBack(String key) {
		return outside("read", () -> {
			JdbcRecordRow row = readWhole(this.ownConnections, key);
			return (row.record() != null && row.record().expiresAt().isAfter(row.now())) ? row.record() : null;
		});
	}

	private JdbcRecordRow read(JdbcTemplate jdbc, String key) {
		return jdbc.queryForObject(this.table.select(), (rs, n) -> JdbcRecordRow.read(rs),
				this.keys.encode(key));
	}

	/**
	 * The row of a key with its record's whole journal: its step rows read after the row, and the
	 * row read again, so a row rewritten meanwhile (a resubmit and a new attempt's steps) is never
	 * given with another run's rows.
	 */
	private JdbcRecordRow readWhole(JdbcTemplate jdbc, String key) {
		String recordKey = this.keys.encode(key);
		JdbcRecordRow row = read(jdbc, key);
		for (int conflict = 0; conflict < MAX_CONFLICTS; conflict++) {
			if (row.stepRows() == 0) {
				return row;
			}
			JdbcRecordRow whole = this.steps.whole(jdbc, recordKey, row);
			JdbcRecordRow again = read(jdbc, key);
			if (again.version() == row.version() && Objects.equals(tokenOf(again), tokenOf(row))) {
				return whole;
			}
			row = again;
		}
		throw contended(key);
	}

	private static String tokenOf(JdbcRecordRow row) {
		return (row.record() != null) ? row.record().token() : null;
	}

	/** A transition of a held claim (renewal, completion, release): it keeps the journal as stored. */
	private IdempotencyRecord transitionOutside(Claim claim,
			BiFunction<ClaimRules, IdempotencyRecord, IdempotencyRecord> change) {
		return outside("write", () -> transition(this.ownConnections, claim.key(), change, true));
	}

	/**
	 * Reads the row (locking it in a transaction), applies {@code change} with the database's
	 * clock, and writes the result as a compare-and-set; a lost race is decided again. A key
	 * without a row is given to {@code change} as {@code null} (with the clock read on its own); a
	 * result that is the record read itself is not written. {@code keepsJournal}: whether
	 * {@code change} keeps the row's journal as stored ({@link #write}).
	 */
	private IdempotencyRecord transition(JdbcTemplate jdbc, String key,
			BiFunction<ClaimRules, IdempotencyRecord, IdempotencyRecord> change, boolean keepsJournal) {
		for (int conflict = 0; conflict < MAX_CONFLICTS; conflict++) {
			JdbcRecordRow locked = jdbc.query(this.table.selectForUpdate(),
					(rs) -> rs.next() ? JdbcRecordRow.read(rs) : null, this.keys.encode(key));
			JdbcRecordRow row = (locked != null) ? locked : read(jdbc, key);
			IdempotencyRecord next = change.apply(rules(row), row.record());
			if (next == row.record() || write(jdbc, row, next, keepsJournal)) {
				return next;
			}
		}
		throw contended(key);
	}

	/**
	 * Writes a record over the row read: {@code false} when another writer changed the row first. A
	 * record that keeps the row's journal (as its transition says: {@code keepsJournal}) keeps the
	 * row's {@code journal} column and step rows, whatever journal the record carries (the column's
	 * part only, when its steps are in step rows); any other journal is written into the column (step
	 * rows past it are deleted by the next step).
	 */
	private boolean write(JdbcTemplate jdbc, JdbcRecordRow row, IdempotencyRecord record, boolean keepsJournal) {
		if (row.record() != null && keepsJournal) {
			return update(jdbc, row, record, row.journalColumn());
		}
		String journal = this.codec.encodeJournal(record.journal());
		int size = journal.getBytes(StandardCharsets.UTF_8).length;
		if (size > MAX_JOURNAL_BYTES) {
			throw new RecordTooLargeException(record.key(), size, MAX_JOURNAL_BYTES);
		}
		String recordKey = this.keys.encode(record.key());
		if (row.record() == null) {
			try {
				return jdbc.update(this.table.insert(), (ps) -> {
					ps.setString(1, recordKey);
					JdbcRecordRow.bind(ps, 2, record, journal);
				}) == 1;
			}
			catch (DuplicateKeyException ex) {
				return false;
			}
		}
		return update(jdbc, row, record, journal);
	}

	/** A compare-and-set of an existing row on its token and version. */
	private boolean update(JdbcTemplate jdbc, JdbcRecordRow row, IdempotencyRecord record, String journal) {
		return jdbc.update(this.table.update(), (ps) -> {
			int next = JdbcRecordRow.bind(ps, 1, record, journal);
			ps.setString(next, this.keys.encode(record.key()));
			ps.setString(next + 1, row.record().token());
			ps.setLong(next + 2, row.version());
		}) == 1;
	}

	private ClaimRules rules(JdbcRecordRow row) {
		return new ClaimRules(Clock.fixed(row.now(), ZoneOffset.UTC), this.completedTtl);
	}

	/** Runs a store operation on connections of its own, outside any transaction the caller has open. */
	private <T> T outside(String operation, Supplier<T> action) {
		return translated(operation, () -> this.outsideTransactions.execute((status) -> action.get()));
	}

	private <T> T translated(String operation, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (DataAccessException | TransactionException ex) {
			throw new StoreUnavailableException("JDBC " + operation + " on table " + this.table.name() + " failed: "
					+ ex.getMessage(), ex);
		}
	}

	private StoreUnavailableException contended(String key) {
		return new StoreUnavailableException("JDBC write of key '" + key + "' lost " + MAX_CONFLICTS
				+ " races in a row to other writers of its row", null);
	}

}
