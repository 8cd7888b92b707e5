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
	 * Writes a step's entry over its row, or adds a row for it (moving the entries of a journal
	 * column of the earlier format into rows first). Runs in the transaction that holds the record's
	 * row lock and writes the record with {@link #column(int)} of the count returned.
	 * @param jdbc where to write
	 * @param recordKey the record's key in the table
	 * @param row the record's row as read
	 * @param step the entry
	 * @return how many step rows the record names now
	 */
	int write(JdbcTemplate jdbc, String recordKey, JdbcRecordRow row, StepRecord step) {
		int rows = row.stepRows();
		if (rows == 0 && !row.record().journal().isEmpty()) {
			for (StepRecord earlier : row.record().journal().steps()) {
				rows = add(jdbc, recordKey, rows, earlier);
			}
		}
		Integer position = jdbc.query(this.table.selectStepPosition(), (rs) -> rs.next() ? rs.getInt(1) : null,
				recordKey, digest(step.name()));
		if (position != null && position <= rows) {
			jdbc.update(this.table.updateStep(), this.codec.encodeStep(step), recordKey, digest(step.name()));
			return rows;
		}
		return add(jdbc, recordKey, rows, step);
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
		try {
			return jdbc.update(this.table.insertStep(), recordKey, rows + 1, digest(step.name()),
					this.codec.encodeStep(step)) == 1;
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	private static String digest(String name) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every Java platform", ex);
		}
	}

}
