package dev.exactlyonce.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

	/** Step names whose rows one locking read joins (MariaDB joins at most 61 tables in a statement). */
	private static final int JOINED_NAMES = 8;

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
	 * Reads a record's row, locking it until the transaction ends, with the positions of the rows of
	 * some steps: in one statement for up to {@value #JOINED_NAMES} step names, a statement per
	 * {@value #JOINED_NAMES} names beyond.
	 * @param jdbc where to read
	 * @param recordKey the record's key in the table
	 * @param steps the steps to be written
	 * @return the row, or {@code null} when the key has none
	 */
	Locked lock(JdbcTemplate jdbc, String recordKey, List<StepRecord> steps) {
		List<String> digests = digests(steps);
		JdbcRecordRow row = null;
		Map<String, Integer> positions = new HashMap<>();
		for (int from = 0; from < digests.size(); from += JOINED_NAMES) {
			List<String> names = digests.subList(from, Math.min(digests.size(), from + JOINED_NAMES));
			List<Object> parameters = new ArrayList<>(names);
			parameters.add(recordKey);
			JdbcRecordRow read = jdbc.query(this.table.selectForSteps(names.size()), (rs) -> {
				if (!rs.next()) {
					return null;
				}
				for (int i = 0; i < names.size(); i++) {
					int position = rs.getInt("step_position_" + i);
					if (!rs.wasNull()) {
						positions.put(names.get(i), position);
					}
				}
				return JdbcRecordRow.read(rs);
			}, parameters.toArray());
			if (read == null) {
				return null;
			}
			row = (row != null) ? row : read;
		}
		return new Locked(row, positions);
	}

	/**
	 * Writes steps' entries, each over its row or into a row added after the others (moving the
	 * entries of a journal column of the earlier format into rows first), and the record's
	 * {@code journal} column with {@link #column(int)} of the rows it names then, as a compare-and-set
	 * on the version read. Runs in the transaction that holds the record's row lock ({@link #lock});
	 * on PostgreSQL the steps' rows and the record are written in one statement, elsewhere a
	 * statement per row and one for the record.
	 * @param jdbc where to write
	 * @param recordKey the record's key in the table
	 * @param locked the record's row as locked, with the positions of the steps' rows
	 * @param steps the entries, in order: an entry of a name written before in the list replaces it
	 * @throws StoreUnavailableException when the locked row changed, or a row no record names cannot
	 * be cleared
	 */
	void write(JdbcTemplate jdbc, String recordKey, Locked locked, List<StepRecord> steps) {
		JdbcRecordRow row = locked.row();
		int rows = row.stepRows();
		Set<String> named = new HashSet<>();
		if (rows == 0 && !row.record().journal().isEmpty()) {
			for (StepRecord earlier : row.record().journal().steps()) {
				String digest = digest(earlier.name());
				rows = add(jdbc, recordKey, rows, new RowWrite(digest, this.codec.encodeStep(earlier), true));
				named.add(digest);
			}
		}
		else {
			// a row past the rows the record names belongs to no record
			int stepRows = rows;
			locked.positions().forEach((digest, position) -> {
				if (position <= stepRows) {
					named.add(digest);
				}
			});
		}
		List<RowWrite> writes = plan(named, steps);
		int written = rows + (int) writes.stream().filter(RowWrite::adds).count();
		if (this.table.dialect().writesWithReturning()) {
			if (!writeWithJournal(jdbc, recordKey, rows, writes, row, written)) {
				// a row no record names holds a position or a name: clear them, and write again
				jdbc.update(this.table.deleteStepsAfter(), recordKey, rows);
				writeEach(jdbc, recordKey, rows, writes);
				updateJournal(jdbc, recordKey, row, written);
			}
			return;
		}
		writeEach(jdbc, recordKey, rows, writes);
		updateJournal(jdbc, recordKey, row, written);
	}

	/**
	 * The rows to write for steps' entries, in order: one per name, with the last entry of the name,
	 * written over the row of a name the record's rows hold ({@code named}), else added.
	 */
	private List<RowWrite> plan(Set<String> named, List<StepRecord> steps) {
		Map<String, RowWrite> writes = new LinkedHashMap<>();
		for (StepRecord step : steps) {
			String digest = digest(step.name());
			writes.put(digest, new RowWrite(digest, this.codec.encodeStep(step), !named.contains(digest)));
		}
		return List.copyOf(writes.values());
	}

	/**
	 * Writes the steps' rows and, once every one is written, the record's {@code journal} column
	 * naming {@code rows}, in one statement: for dialects that write in a {@code WITH} clause.
	 * @return whether they were written ({@code false} when a row was not, which leaves the record
	 * as it was and the other rows written)
	 */
	private boolean writeWithJournal(JdbcTemplate jdbc, String recordKey, int rows, List<RowWrite> writes,
			JdbcRecordRow row, int written) {
		List<String> statements = new ArrayList<>();
		List<Object> parameters = new ArrayList<>();
		int added = rows;
		for (RowWrite write : writes) {
			if (write.adds()) {
				added++;
				statements.add(this.table.insertStep());
				parameters.addAll(List.of(recordKey, added, write.digest(), write.entry()));
			}
			else {
				statements.add(this.table.updateStep());
				parameters.addAll(List.of(write.entry(), recordKey, write.digest()));
			}
		}
		parameters.addAll(Arrays.asList(journalParameters(recordKey, row, written)));
		return jdbc.update(this.table.withJournalUpdate(statements), parameters.toArray()) == 1;
	}

	/**
	 * Writes the steps' rows a statement each: over the row of the step's name, or added after the
	 * rows before it ({@link #add}).
	 */
	private void writeEach(JdbcTemplate jdbc, String recordKey, int rows, List<RowWrite> writes) {
		int added = rows;
		for (RowWrite write : writes) {
			if (write.adds()) {
				added = add(jdbc, recordKey, added, write);
			}
			else if (jdbc.update(this.table.updateStep(), write.entry(), recordKey, write.digest()) != 1) {
				throw changed(recordKey);
			}
		}
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
	private int add(JdbcTemplate jdbc, String recordKey, int rows, RowWrite write) {
		if (!insert(jdbc, recordKey, rows, write)) {
			jdbc.update(this.table.deleteStepsAfter(), recordKey, rows);
			if (!insert(jdbc, recordKey, rows, write)) {
				throw new StoreUnavailableException("JDBC step row " + (rows + 1) + " of store key '" + recordKey
						+ "' in table " + this.table.stepTableName() + " conflicts with a row the record names", null);
			}
		}
		return rows + 1;
	}

	private boolean insert(JdbcTemplate jdbc, String recordKey, int rows, RowWrite write) {
		return written(jdbc, this.table.insertStep(), recordKey, rows + 1, write.digest(), write.entry());
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
	 * A record's row as locked for steps' writes.
	 *
	 * @param row the row
	 * @param positions the positions of the steps' rows found, by name digest
	 */
	record Locked(JdbcRecordRow row, Map<String, Integer> positions) {
	}

	/**
	 * A step row to write.
	 *
	 * @param digest the step's name digest
	 * @param entry the step's entry as JSON
	 * @param adds whether the row is added after the record's rows, else written over the row of its name
	 */
	private record RowWrite(String digest, String entry, boolean adds) {
	}

	private static List<String> digests(List<StepRecord> steps) {
		return steps.stream().map((step) -> digest(step.name())).distinct().toList();
	}

}
