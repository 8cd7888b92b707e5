package dev.exactlyonce.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepJournal;

/**
 * A row of the JDBC store's table as read, with the database's clock at the read.
 *
 * @param record the record, or {@code null} when the key has no row; its journal is the one the
 * {@code journal} column holds (empty, not read, once the steps moved to step rows: {@code stepRows}
 * tells) until {@link #withJournal} gives it the whole journal
 * @param version the row's version (every write increments it), or -1 when there is no row
 * @param now the database's clock when the row was read
 * @param journalColumn the {@code journal} column as read, or {@code null} when there is no row
 * @param stepRows how many step rows the record names ({@link JdbcStepJournal})
 */
record JdbcRecordRow(IdempotencyRecord record, long version, Instant now, String journalColumn, int stepRows) {

	private static final RecordCodec CODEC = new RecordCodec();

	/**
	 * Reads the current row of a result set selected with {@link JdbcRecordTable#COLUMNS} and
	 * {@code db_now}.
	 */
	static JdbcRecordRow read(ResultSet rs) throws SQLException {
		Instant now = Instant.ofEpochMilli(rs.getLong("db_now"));
		if (rs.getString("record_key") == null) {
			return new JdbcRecordRow(null, -1, now, null, 0);
		}
		String journalColumn = rs.getString("journal");
		int stepRows = JdbcStepJournal.stepRows(journalColumn);
		IdempotencyRecord record = new IdempotencyRecord(new String(rs.getBytes("idempotency_key"), StandardCharsets.UTF_8),
				rs.getString("listener"), rs.getString("owner"), rs.getString("token"),
				RecordState.valueOf(rs.getString("state")), rs.getInt("attempts"), instant(rs, "started_at"),
				instant(rs, "lease_until"), rs.getLong("stream_sequence"), instant(rs, "completed_at"),
				instant(rs, "expires_at"), rs.getString("result_summary"), previousAttempt(rs),
				(stepRows > 0) ? StepJournal.EMPTY : CODEC.decodeJournal(journalColumn),
				sequences(rs.getString("duplicate_sequences")), CODEC.decodeAudit(rs.getString("audit")));
		return new JdbcRecordRow(record, rs.getLong("version"), now, journalColumn, stepRows);
	}

	/**
	 * This row with its record's whole journal.
	 * @param journal the journal
	 * @return the row
	 */
	JdbcRecordRow withJournal(StepJournal journal) {
		return new JdbcRecordRow(this.record.withJournal(journal), this.version, this.now, this.journalColumn,
				this.stepRows);
	}

	/**
	 * Binds every column of a record but its {@code record_key} and {@code version}, in the order of
	 * {@link JdbcRecordTable#COLUMNS}.
	 * @param ps the statement
	 * @param first the index of the first parameter
	 * @param record the record
	 * @param journal the record's journal as JSON
	 * @return the index after the last parameter bound
	 */
	static int bind(PreparedStatement ps, int first, IdempotencyRecord record, String journal) throws SQLException {
		int i = first;
		ps.setBytes(i++, record.key().getBytes(StandardCharsets.UTF_8));
		ps.setString(i++, record.listener());
		ps.setString(i++, record.owner());
		ps.setString(i++, record.token());
		ps.setString(i++, record.state().name());
		ps.setInt(i++, record.attempts());
		setMillis(ps, i++, record.startedAt());
		setMillis(ps, i++, record.leaseUntil());
		ps.setLong(i++, record.streamSequence());
		setMillis(ps, i++, record.completedAt());
		setMillis(ps, i++, record.expiresAt());
		ps.setString(i++, record.resultSummary());
		PreviousAttempt previous = record.previousAttempt();
		ps.setString(i++, (previous != null) ? previous.owner() : null);
		setMillis(ps, i++, (previous != null) ? previous.startedAt() : null);
		ps.setObject(i++, (previous != null) ? previous.attempts() : null, Types.INTEGER);
		ps.setString(i++, (previous != null) ? previous.state().name() : null);
		ps.setString(i++, (previous != null) ? previous.failure() : null);
		ps.setString(i++, (previous != null) ? previous.unfinishedStep() : null);
		ps.setString(i++, (previous != null) ? previous.token() : null);
		ps.setString(i++, journal);
		ps.setString(i++, record.duplicateSequences().isEmpty() ? null
				: record.duplicateSequences().stream().map(String::valueOf).collect(Collectors.joining(",")));
		ps.setString(i++, record.audit().isEmpty() ? null : CODEC.encodeAudit(record.audit()));
		return i;
	}

	private static PreviousAttempt previousAttempt(ResultSet rs) throws SQLException {
		String state = rs.getString("previous_state");
		if (state == null) {
			return null;
		}
		return new PreviousAttempt(rs.getString("previous_owner"), instant(rs, "previous_started_at"),
				rs.getInt("previous_attempts"), RecordState.valueOf(state), rs.getString("previous_failure"),
				rs.getString("previous_unfinished_step"), rs.getString("previous_token"));
	}

	/** Parses the comma-separated {@code duplicate_sequences} column ({@code NULL} for none). */
	private static List<Long> sequences(String column) {
		return (column != null) ? Arrays.stream(column.split(",")).map(Long::valueOf).toList() : List.of();
	}

	private static Instant instant(ResultSet rs, String column) throws SQLException {
		long millis = rs.getLong(column);
		return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	private static void setMillis(PreparedStatement ps, int index, Instant instant) throws SQLException {
		ps.setObject(index, (instant != null) ? instant.toEpochMilli() : null, Types.BIGINT);
	}

}
