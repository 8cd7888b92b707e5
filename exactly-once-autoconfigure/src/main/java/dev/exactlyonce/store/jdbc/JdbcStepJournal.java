package dev.exactlyonce.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The durable steps of the JDBC store's records, one row per step in the step table
 * ({@link JdbcRecordTable#stepTableName()}), so a step writes one row whatever the journal's length.
 * <p>
 * The record's {@code journal} column says how many step rows it names: a JSON object
 * {@code {"stepRows": n}} (the rows at positions 1 to n are its journal, in the order the steps first
 * started; rows past n belong to no record and are deleted when a row added there meets one). A record
 * written before the step table held its whole journal there as a JSON array; its first step since
 * moves those entries into rows. Earlier versions, reading only the array, refuse the object as
 * unreadable instead of resuming the task without its steps. Rows and record are written in one
 * transaction that holds the record's row lock, so a zombie's row is never part of a journal.
 */
final class JdbcStepJournal {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final String STEP_ROWS = "stepRows";

	private final JdbcRecordTable table;

	private final RecordCodec codec = new RecordCodec();

	JdbcStepJournal(JdbcRecordTable table) {
		this.table = table;
	}

	/**
	 * How many step rows a {@code journal} column names.
	 * @param column the column, a JSON array (none) or object
	 * @return the count
	 * @throws StoreUnavailableException when the column is not readable
	 */
	static int stepRows(String column) {
		if (column == null || !column.startsWith("{")) {
			return 0;
		}
		try {
			JsonNode rows = MAPPER.readTree(column).get(STEP_ROWS);
			if (rows == null || !rows.canConvertToInt()) {
				throw new StoreUnavailableException("Step journal column is not readable: " + column, null);
			}
			return rows.asInt();
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Step journal column is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * The {@code journal} column of a record whose steps are in rows.
	 * @param rows how many
	 * @return the column
	 */
	static String column(int rows) {
		return "{\"" + STEP_ROWS + "\":" + rows + "}";
	}

	/**
	 * A row with its record's whole journal: the step rows it names, read in one query.
	 * @param jdbc where to read
	 * @param recordKey the record's key in the table
	 * @param row the row as read
	 * @return the row with the whole journal
	 */
	JdbcRecordRow whole(JdbcTemplate jdbc, String recordKey, JdbcRecordRow row) {
		if (row.record() == null || row.stepRows() == 0) {
			return row;
		}
		List<StepRecord> steps = jdbc.query(this.table.selectSteps(), (rs, n) -> this.codec.decodeStep(rs.getString(1)),
				recordKey, row.stepRows());
		return row.withJournal(new StepJournal(steps));
	}

	/**
	 * Reads a record's row, locking it until the transaction ends, with the position of a step's row,
	 * in one statement.
	 * @param jdbc where to read
	 * @param recordKey the record's key in the table
	 * @param step the step to be written
	 * @return the row, or {@code null} when the key has none
	 */
	Locked lock(JdbcTemplate jdbc, String recordKey, StepRecord step) {
		return jdbc.query(this.table.selectForStep(), (rs) -> {
			if (!rs.next()) {
				return null;
			}
			int read = rs.getInt("step_position");
			Integer position = rs.wasNull() ? null : read;
			return new Locked(JdbcRecordRow.read(rs), position);
		}, digest(step.name()), recordKey);
	}

	/**
	 * Writes a step's entry over its row, or adds a row for it (moving the entries of a journal
	 * column of the earlier format into rows first), and the record's {@code journal} column with
	 * {@link #column(int)} of the rows it names then, as a compare-and-set on the version read. Runs
	 * in the transaction that holds the record's row lock ({@link #lock}); on PostgreSQL the step's
	 * row and the record are written in one statement.
	 * @param jdbc where to write
	 * @param recordKey the record's key in the table
	 * @param locked the record's row as locked
	 * @param step the entry
	 * @throws StoreUnavailableException when the locked row changed, or a row no record names cannot
	 * be cleared
	 */
	void write(JdbcTemplate jdbc, String recordKey, Locked locked, StepRecord step) {
		JdbcRecordRow row = locked.row();
		int rows = row.stepRows();
		Integer position = locked.position();
		if (rows == 0 && !row.record().journal().isEmpty()) {
			for (StepRecord earlier : row.record().journal().steps()) {
				rows = add(jdbc, recordKey, rows, earlier);
			}
			position = jdbc.query(this.table.selectStepPosition(), (rs) -> rs.next() ? rs.getInt(1) : null, recordKey,
					digest(step.name()));
		}
		String entry = this.codec.encodeStep(step);
		if (position != null && position <= rows) {
			if (!writeWithJournal(jdbc, recordKey, this.table.updateStep(),
					new Object[] { entry, recordKey, digest(step.name()) }, row, rows)) {
				throw changed(recordKey);
			}
			return;
		}
		if (!writeWithJournal(jdbc, recordKey, this.table.insertStep(),
				new Object[] { recordKey, rows + 1, digest(step.name()), entry }, row, rows + 1)) {
			// a row no record names holds the position or the name
			updateJournal(jdbc, recordKey, row, add(jdbc, recordKey, rows, step));
		}
	}

	/**
	 * Writes a step's row and, once it is written, the record's {@code journal} column naming
	 * {@code rows}: in one statement where the dialect writes in a {@code WITH} clause.
	 * @return whether the step's row was written ({@code false} on PostgreSQL also when the record
	 * was not, which {@link #updateJournal} then tells)
	 */
	private boolean writeWithJournal(JdbcTemplate jdbc, String recordKey, String stepWrite, Object[] stepParameters,
			JdbcRecordRow row, int rows) {
		if (this.table.dialect().writesWithReturning()) {
			Object[] journal = journalParameters(recordKey, row, rows);
			Object[] parameters = new Object[stepParameters.length + journal.length];
			System.arraycopy(stepParameters, 0, parameters, 0, stepParameters.length);
			System.arraycopy(journal, 0, parameters, stepParameters.length, journal.length);
			return jdbc.update(this.table.withJournalUpdate(stepWrite), parameters) == 1;
		}
		if (!written(jdbc, stepWrite, stepParameters)) {
			return false;
		}
		updateJournal(jdbc, recordKey, row, rows);
		return true;
	}

	/**
	 * Writes the record's {@code journal} column naming {@code rows}: the row as it was but for that
	 * column, so with no indexed column changed PostgreSQL rewrites it in place (a step would
	 * otherwise add index entries to the row's key at every step).
	 */
	private void updateJournal(JdbcTemplate jdbc, String recordKey, JdbcRecordRow row, int rows) {
		if (jdbc.update(this.table.updateJournal(), journalParameters(recordKey, row, rows)) != 1) {
			throw changed(recordKey);
		}
	}

	private static Object[] journalParameters(String recordKey, JdbcRecordRow row, int rows) {
		return new Object[] { column(rows), recordKey, row.record().token(), row.version() };
	}

	/**
	 * Adds a row at {@code rows + 1}; when a row no record names holds that position or the step's
	 * name, deletes the rows past {@code rows} first (only then: a delete by position on every step
	 * costs PostgreSQL a scan of the record's rows under a generic plan).
	 */
	private int add(JdbcTemplate jdbc, String recordKey, int rows, StepRecord step) {
		if (!insert(jdbc, recordKey, rows, step)) {
			jdbc.update(this.table.deleteStepsAfter(), recordKey, rows);
			if (!insert(jdbc, recordKey, rows, step)) {
				throw new StoreUnavailableException("JDBC step row " + (rows + 1) + " of store key '" + recordKey
						+ "' in table " + this.table.stepTableName() + " conflicts with a row the record names", null);
			}
		}
		return rows + 1;
	}

	private boolean insert(JdbcTemplate jdbc, String recordKey, int rows, StepRecord step) {
		return written(jdbc, this.table.insertStep(), recordKey, rows + 1, digest(step.name()),
				this.codec.encodeStep(step));
	}

	/** Runs a write of one row: whether it wrote it ({@code false} when a unique key kept it out). */
	private static boolean written(JdbcTemplate jdbc, String write, Object... parameters) {
		try {
			return jdbc.update(write, parameters) == 1;
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	private static StoreUnavailableException changed(String key) {
		return new StoreUnavailableException("JDBC write of store key '" + key + "' found its locked row changed", null);
	}

	private static String digest(String name) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every Java platform", ex);
		}
	}

	/**
	 * A record's row as locked for a step's write.
	 *
	 * @param row the row
	 * @param position the position of the step's row, or {@code null} when it has none
	 */
	record Locked(JdbcRecordRow row, Integer position) {
	}

}
