package dev.exactlyonce.store.jdbc;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes the JDBC store's expired records (expiry by the database's clock), oldest first, in
 * bounded batches through the index on {@code expires_at}, each batch one auto-committed statement.
 */
public class JdbcRecordPurge {

	private final JdbcTemplate jdbc;

	private final String purge;

	/**
	 * Creates the purge.
	 * @param dataSource the store's data source
	 * @param table the store's table
	 */
	public JdbcRecordPurge(DataSource dataSource, JdbcRecordTable table) {
		this.jdbc = new JdbcTemplate(new AutoCommitDataSource(dataSource));
		this.purge = table.purge();
	}

	/**
	 * Deletes one batch of expired records.
	 * @param maxRows the most rows deleted
	 * @return how many were deleted
	 * @throws org.springframework.dao.DataAccessException when the database cannot be reached
	 */
	public int purgeExpired(int maxRows) {
		return this.jdbc.update(this.purge, maxRows);
	}

}
