package dev.exactlyonce.store.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.util.StreamUtils;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * The table of the JDBC store: its validated name, its DDL and the statements the store runs on
 * it. Times are epoch milliseconds read from the database's clock ({@link JdbcDialect#now()}).
 */
public final class JdbcRecordTable {

	/** The default table name. */
	public static final String DEFAULT_NAME = "exactlyonce_record";

	private static final Pattern NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}");

	static final String COLUMNS = "record_key, idempotency_key, listener, owner, token, state, attempts, started_at, "
			+ "lease_until, stream_sequence, completed_at, expires_at, result_summary, previous_owner, "
			+ "previous_started_at, previous_attempts, previous_state, previous_failure, previous_unfinished_step, "
			+ "previous_token, journal, duplicate_sequences, audit, version";

	/** {@link #COLUMNS} of the table aliased {@code r}. */
	private static final String RECORD_COLUMNS = "r." + COLUMNS.replace(", ", ", r.");

	private final String name;

	private final JdbcDialect dialect;

	/**
	 * Creates the table description.
	 * @param name the table name, optionally schema-qualified ({@code schema.table}): letters, digits
	 * and underscores, not starting with a digit
	 * @param dialect the database's dialect
	 * @throws ExactlyOnceConfigurationException when the name is not such an identifier
	 */
	public JdbcRecordTable(String name, JdbcDialect dialect) {
		if (name == null || !NAME.matcher(name).matches()) {
			throw new ExactlyOnceConfigurationException("exactlyonce.store.jdbc.table-name '" + name
					+ "' is not a plain SQL identifier (letters, digits and '_', not starting with a digit, at most 48 "
					+ "characters, optionally prefixed by 'schema.')", "Set it to a name such as '" + DEFAULT_NAME
					+ "' or 'myschema." + DEFAULT_NAME + "'; the name is written into SQL unquoted.");
		}
		this.name = name;
		this.dialect = dialect;
	}

	/**
	 * The table name.
	 * @return the name, as configured
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The database's dialect.
	 * @return the dialect
	 */
	public JdbcDialect dialect() {
		return this.dialect;
	}

	/**
	 * The table of the records' durable steps, one row per step: {@link #name()} + {@code _step}.
	 * @return its name
	 */
	public String stepTableName() {
		return this.name + "_step";
	}

	/**
	 * The DDL that creates the table, its index on {@code expires_at} and its step table when they are missing,
	 * for the dialect's database: what {@code initialize-schema} runs, and what a Flyway or Liquibase
	 * migration should hold.
	 * @return the statements, separated by {@code ;}
	 */
	public String ddl() {
		String resource = "dev/exactlyonce/store/jdbc/schema-" + this.dialect.platform() + ".sql";
		try {
			String script = StreamUtils.copyToString(new ClassPathResource(resource).getInputStream(),
					StandardCharsets.UTF_8);
			String unqualified = this.name.substring(this.name.indexOf('.') + 1);
			return script.replace("${table}", this.name)
				.replace("${index}", unqualified + "_expires_at")
				.replace("${index_step_name}", unqualified + "_step_name");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The JDBC store's DDL " + resource + " is missing from the classpath", ex);
		}
	}

	/** The row of a key (all columns {@code NULL} when there is none) and the database's clock. */
	String select() {
		return "SELECT " + COLUMNS + ", n.db_now FROM (SELECT " + this.dialect.now() + " AS db_now) n LEFT JOIN "
				+ this.name + " r ON r.record_key = ?";
	}

	/** The row of a key, locked until the transaction ends (at once in auto-commit), and the database's clock. */
	String selectForUpdate() {
		return "SELECT " + COLUMNS + ", " + this.dialect.now() + " AS db_now FROM " + this.name
				+ " WHERE record_key = ? FOR UPDATE";
	}

	/**
	 * The row of a key locked until the transaction ends, the database's clock, and the position of
	 * the row of each of some steps of the record ({@code step_position_<i>}, {@code NULL} when it
	 * has none), read in the same statement: the steps' name digests, then the record key. Each
	 * step's row is joined on its own, so each is found through the unique index on its name (a
	 * list of names lets PostgreSQL's generic plan filter every row of the record).
	 * @param names how many steps
	 */
	String selectForSteps(int names) {
		StringBuilder select = new StringBuilder("SELECT " + RECORD_COLUMNS + ", " + this.dialect.now() + " AS db_now");
		StringBuilder joins = new StringBuilder();
		for (int i = 0; i < names; i++) {
			select.append(", s").append(i).append(".position AS step_position_").append(i);
			joins.append(" LEFT JOIN ").append(stepTableName()).append(" s").append(i).append(" ON s").append(i)
				.append(".record_key = r.record_key AND s").append(i).append(".name_digest = ?");
		}
		return select.append(" FROM ").append(this.name).append(" r").append(joins)
			.append(" WHERE r.record_key = ? ").append(this.dialect.forUpdateOf("r")).toString();
	}

	String scan() {
		return "SELECT " + COLUMNS + ", " + this.dialect.now() + " AS db_now FROM " + this.name + " WHERE expires_at > "
				+ this.dialect.now();
	}

	/**
	 * A first claim of a key, its times from the database's clock: owner, token, lease and TTL in
	 * milliseconds as parameters after the two keys.
	 */
	String insertClaim() {
		return this.dialect.insertUnlessPresent("INSERT INTO " + this.name + " (record_key, idempotency_key, owner, "
				+ "token, state, attempts, started_at, lease_until, stream_sequence, expires_at, journal, version) "
				+ "SELECT ?, ?, ?, ?, 'IN_PROGRESS', 1, n.db_now, n.db_now + ?, 0, n.db_now + ?, '[]', 0 FROM (SELECT "
				+ this.dialect.now() + " AS db_now) n");
	}

	/**
	 * {@link #insertClaim()} that returns the row it inserted, with its start as {@code db_now} (a
	 * conflict returns none): for dialects that {@linkplain JdbcDialect#writesWithReturning() return
	 * rows from writes}.
	 */
	String insertClaimReturning() {
		return insertClaim() + " RETURNING " + COLUMNS + ", started_at AS db_now";
	}

	String insert() {
		return this.dialect.insertUnlessPresent("INSERT INTO " + this.name + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, "
				+ "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)");
	}

	/**
	 * A query that reads every column the store uses and no row: it fails on a table that lacks one.
	 * @return the query
	 */
	public String readableCheck() {
		return "SELECT " + COLUMNS + " FROM " + this.name + " WHERE 1 = 0";
	}

	/**
	 * A query that reads every column of the step table and no row: it fails when the table is missing.
	 * @return the query
	 */
	public String stepTableReadableCheck() {
		return "SELECT record_key, position, name_digest, entry FROM " + stepTableName() + " WHERE 1 = 0";
	}

	/** The entries of a record's first {@code n} step rows, in order: the record key, then n. */
	String selectSteps() {
		return "SELECT entry FROM " + stepTableName() + " WHERE record_key = ? AND position <= ? ORDER BY position";
	}

	/**
	 * Replaces the entry of a step row, found through the unique index on its name (a statement by
	 * position lets PostgreSQL's generic plan, made while the table looks empty, scan that index's
	 * rows of the record instead of the primary key): entry, record key, name digest.
	 */
	String updateStep() {
		return "UPDATE " + stepTableName() + " SET entry = ? WHERE record_key = ? AND name_digest = ?";
	}

	/**
	 * Adds a step row unless a row holds its position or name (a row no record names, left by a
	 * journal that was replaced): record key, position, name digest, entry.
	 */
	String insertStep() {
		return this.dialect.insertUnlessPresent("INSERT INTO " + stepTableName()
				+ " (record_key, position, name_digest, entry) VALUES (?, ?, ?, ?)");
	}

	/** Deletes a record's step rows past a position (rows no record names): record key, position. */
	String deleteStepsAfter() {
		return "DELETE FROM " + stepTableName() + " WHERE record_key = ? AND position > ?";
	}

	/**
	 * A compare-and-set of the record's {@code journal} column alone, after its step rows changed:
	 * journal, then the key, the token and the version read.
	 */
	String updateJournal() {
		return "UPDATE " + this.name + " SET journal = ?, version = version + 1 WHERE record_key = ? AND token = ? "
				+ "AND version = ?";
	}

	/**
	 * Step rows' writes and {@link #updateJournal()} in one statement, the record written only when
	 * every step row was: for dialects that {@linkplain JdbcDialect#writesWithReturning() write in a
	 * {@code WITH} clause}. The step statements' parameters come first, in order.
	 * @param stepWrites each {@link #insertStep()} or {@link #updateStep()}, of distinct rows
	 * @return the statement
	 */
	String withJournalUpdate(List<String> stepWrites) {
		StringBuilder statement = new StringBuilder("WITH ");
		StringBuilder written = new StringBuilder();
		for (int i = 0; i < stepWrites.size(); i++) {
			statement.append((i > 0) ? ", " : "").append("s").append(i).append(" AS (").append(stepWrites.get(i))
				.append(" RETURNING position)");
			written.append(" AND EXISTS (SELECT 1 FROM s").append(i).append(")");
		}
		return statement.append(' ').append(updateJournal()).append(written).toString();
	}

	/** A compare-and-set of the whole row: on the key, the token and the version read. */
	String update() {
		return "UPDATE " + this.name + " SET idempotency_key = ?, listener = ?, owner = ?, token = ?, state = ?, "
				+ "attempts = ?, started_at = ?, lease_until = ?, stream_sequence = ?, completed_at = ?, expires_at = ?, "
				+ "result_summary = ?, previous_owner = ?, previous_started_at = ?, previous_attempts = ?, "
				+ "previous_state = ?, previous_failure = ?, previous_unfinished_step = ?, previous_token = ?, "
				+ "journal = ?, duplicate_sequences = ?, audit = ?, version = version + 1 "
				+ "WHERE record_key = ? AND token = ? AND version = ?";
	}

	/**
	 * Creates the table and its index when they are missing, running {@link #ddl()}.
	 * @param dataSource the database
	 */
	public void createIfMissing(DataSource dataSource) {
		new ResourceDatabasePopulator(new ByteArrayResource(ddl().getBytes(StandardCharsets.UTF_8)))
			.execute(dataSource);
	}

	String purge() {
		return this.dialect.purge(this.name);
	}

}
