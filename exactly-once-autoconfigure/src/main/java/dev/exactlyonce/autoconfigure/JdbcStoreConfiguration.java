package dev.exactlyonce.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.transaction.PlatformTransactionManager;

import dev.exactlyonce.autoconfigure.StoreProperties.InitializeSchema;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.HandlerTransactions;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcDialect;
import dev.exactlyonce.store.jdbc.JdbcIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcRecordPurge;
import dev.exactlyonce.store.jdbc.JdbcRecordTable;

/**
 * The JDBC store, only when named, on the application's single {@link DataSource}: creates its
 * table as {@code exactlyonce.store.jdbc.initialize-schema} says, checks at start-up that the table
 * can be read (after Flyway, Liquibase and Boot's SQL initialization), purges expired records, and
 * runs transactional listeners' transactions on the application's transaction manager.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ JdbcTemplate.class, EmbeddedDatabaseConnection.class })
@ConditionalOnMissingBean(IdempotencyStore.class)
@ConditionalOnSingleCandidate(DataSource.class)
@Conditional(StoreTypeCondition.class)
class JdbcStoreConfiguration {

	@Bean
	@DependsOnDatabaseInitialization
	JdbcRecordTable exactlyOnceJdbcRecordTable(DataSource dataSource, ExactlyOnceProperties properties) {
		StoreProperties.Jdbc jdbc = properties.getStore().getJdbc();
		JdbcRecordTable table = new JdbcRecordTable(jdbc.getTableName(), dialect(dataSource));
		if (initializesSchema(jdbc.getInitializeSchema(), dataSource)) {
			table.createIfMissing(dataSource);
		}
		requireReadable(table, dataSource);
		return table;
	}

	@Bean
	JdbcIdempotencyStore jdbcIdempotencyStore(DataSource dataSource, JdbcRecordTable table,
			ExactlyOnceProperties properties) {
		return new JdbcIdempotencyStore(dataSource, table, properties.getStore().getCompletedTtl());
	}

	@Bean
	JdbcRecordPurgeScheduler exactlyOnceJdbcRecordPurge(DataSource dataSource, JdbcRecordTable table,
			ExactlyOnceProperties properties) {
		StoreProperties.Jdbc jdbc = properties.getStore().getJdbc();
		return new JdbcRecordPurgeScheduler(new JdbcRecordPurge(dataSource, table), jdbc.getPurgeInterval(),
				jdbc.getPurgeBatchSize());
	}

	@Bean
	HandlerTransactions exactlyOnceHandlerTransactions(ObjectProvider<PlatformTransactionManager> managers,
			DataSource dataSource) {
		return new SpringHandlerTransactions(managers, dataSource);
	}

	private static boolean initializesSchema(InitializeSchema mode, DataSource dataSource) {
		return switch (mode) {
			case ALWAYS -> true;
			case NEVER -> false;
			case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
		};
	}

	private static JdbcDialect dialect(DataSource dataSource) {
		try {
			return JdbcDialect.of(dataSource);
		}
		catch (MetaDataAccessException ex) {
			throw new ExactlyOnceConfigurationException("exactlyonce.store.type=jdbc but the DataSource's database "
					+ "could not be reached to find its kind (" + ex.getMessage() + ")",
					"Check spring.datasource.url and the database's availability at start-up.");
		}
	}

	private static void requireReadable(JdbcRecordTable table, DataSource dataSource) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		String ddl = "classpath:dev/exactlyonce/store/jdbc/schema-" + table.dialect().platform() + ".sql";
		try {
			jdbc.queryForList(table.readableCheck());
		}
		catch (DataAccessException ex) {
			throw new ExactlyOnceConfigurationException("exactlyonce.store.type=jdbc but the table '" + table.name()
					+ "' is not readable with every column the store uses (" + ex.getMostSpecificCause().getMessage()
					+ ")",
					"Create it with the DDL the starter ships (" + ddl + ", ${table}, ${index} and ${index_step_name} "
							+ "replaced) in a Flyway or Liquibase migration, or set "
							+ "exactlyonce.store.jdbc.initialize-schema=always, which creates missing tables but never "
							+ "changes one: a table created before the column previous_token existed needs it added, "
							+ "ALTER TABLE " + table.name() + " ADD COLUMN previous_token VARCHAR(64), and one created "
							+ "before the step table " + table.stepTableName() + " needs that table too (its CREATE TABLE "
							+ "is in the same DDL).");
		}
		try {
			jdbc.queryForList(table.stepTableReadableCheck());
		}
		catch (DataAccessException ex) {
			throw new ExactlyOnceConfigurationException("exactlyonce.store.type=jdbc but the step table '"
					+ table.stepTableName() + "' (one row per durable step) is not readable ("
					+ ex.getMostSpecificCause().getMessage() + ")",
					"Create it with its CREATE TABLE statement in the DDL the starter ships (" + ddl + ", ${table}, "
							+ "${index} and ${index_step_name} replaced) in a Flyway or Liquibase migration, or set "
							+ "exactlyonce.store.jdbc.initialize-schema=always (it creates only what is missing).");
		}
	}

}
