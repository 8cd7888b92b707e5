package dev.exactlyonce.store.jdbc;

import java.sql.DatabaseMetaData;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * What differs between the databases the JDBC store runs on: how to read the database's clock, how
 * to delete a bounded batch of expired rows, how to lock a joined row, whether writes can be combined
 * into one statement, and which DDL creates the table. Everything else is portable SQL.
 */
public enum JdbcDialect {

	/** PostgreSQL: {@code clock_timestamp()}, so a long transaction still reads the current time. */
	POSTGRESQL("postgresql", "CAST(FLOOR(EXTRACT(EPOCH FROM CLOCK_TIMESTAMP()) * 1000) AS BIGINT)", false),

	/** MariaDB and MySQL: {@code UTC_TIMESTAMP(6)}, so the session's time zone and DST never matter. */
	MARIADB("mariadb", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000", true),

	/** H2, for tests and local runs. */
	H2("h2", "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)", false);

	private final String platform;

	private final String now;

	private final boolean deleteWithLimit;

	JdbcDialect(String platform, String now, boolean deleteWithLimit) {
		this.platform = platform;
		this.now = now;
		this.deleteWithLimit = deleteWithLimit;
	}

	/**
	 * The platform name of the dialect's DDL script ({@code schema-<platform>.sql}).
	 * @return e.g. {@code postgresql}
	 */
	public String platform() {
		return this.platform;
	}

	/**
	 * An SQL expression of the database's current time in epoch milliseconds.
	 * @return the expression
	 */
	String now() {
		return this.now;
	}

	/**
	 * A statement deleting at most {@code ?} rows whose {@code expires_at} is at or before the
	 * database's clock, oldest first, through the index on {@code expires_at}.
	 * @param table the table
	 * @return the statement, with the row limit as its only parameter
	 */
	String purge(String table) {
		String expired = "expires_at <= " + this.now;
		if (this.deleteWithLimit) {
			return "DELETE FROM " + table + " WHERE " + expired + " ORDER BY expires_at LIMIT ?";
		}
		return "DELETE FROM " + table + " WHERE record_key IN (SELECT record_key FROM " + table + " WHERE " + expired
				+ " ORDER BY expires_at LIMIT ?)";
	}

	/**
	 * An {@code INSERT} that inserts nothing, without an error, when a row with one of its unique
	 * keys exists: so a claim of a key seen before leaves no duplicate-key error in the database's or
	 * the driver's logs (which would name the key), and a failed insert does not abort a PostgreSQL
	 * transaction. H2 reports the duplicate as an error, which the store expects.
	 * @param insert an {@code INSERT INTO table ...} statement
	 * @return the statement
	 */
	String insertUnlessPresent(String insert) {
		return switch (this) {
			case POSTGRESQL -> insert + " ON CONFLICT DO NOTHING";
			case MARIADB -> "INSERT IGNORE" + insert.substring("INSERT".length());
			case H2 -> insert;
		};
	}

	/**
	 * The clause that locks the rows a query reads from the table of {@code alias} until the
	 * transaction ends: PostgreSQL locks only that table's rows (it refuses to lock the nullable side
	 * of an outer join), MariaDB and H2 every row the query reads.
	 * @param alias the table's alias in the query
	 * @return the clause
	 */
	String forUpdateOf(String alias) {
		return (this == POSTGRESQL) ? "FOR UPDATE OF " + alias : "FOR UPDATE";
	}

	/**
	 * Whether a statement may write in a {@code WITH} clause and return rows from an {@code INSERT}
	 * ({@code RETURNING}): PostgreSQL only (MySQL has neither), so two writes, or a write and its
	 * read, take one round trip there.
	 * @return whether it may
	 */
	boolean writesWithReturning() {
		return this == POSTGRESQL;
	}

	/**
	 * The dialect of a data source's database.
	 * @param dataSource the data source
	 * @return the dialect
	 * @throws ExactlyOnceConfigurationException when the database is not one the store supports
	 * @throws org.springframework.jdbc.support.MetaDataAccessException when it cannot be reached
	 */
	public static JdbcDialect of(DataSource dataSource) throws MetaDataAccessException {
		String product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
		return of(product);
	}

	/**
	 * The dialect of a database product.
	 * @param product the product name its JDBC driver reports
	 * @return the dialect
	 * @throws ExactlyOnceConfigurationException when the database is not one the store supports
	 */
	public static JdbcDialect of(String product) {
		String name = String.valueOf(product).toLowerCase(Locale.ROOT);
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb") || name.contains("mysql")) {
			return MARIADB;
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw new ExactlyOnceConfigurationException("exactlyonce.store.type=jdbc runs on PostgreSQL, MariaDB, MySQL "
				+ "and H2, but the DataSource's database is '" + product + "'",
				"Keep the idempotency records in one of those databases, or choose another exactlyonce.store.type.");
	}

}
