package dev.exactlyonce.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.HandlerTransactions;

/**
 * Transactional listeners' transactions on the application's single
 * {@link PlatformTransactionManager} (a {@code DataSourceTransactionManager}, or a JPA one over the
 * same {@code DataSource}), with the default definition: joins a transaction already open on the
 * thread, else opens one.
 */
final class SpringHandlerTransactions implements HandlerTransactions {

	private final ObjectProvider<PlatformTransactionManager> managers;

	private final DataSource dataSource;

	SpringHandlerTransactions(ObjectProvider<PlatformTransactionManager> managers, DataSource dataSource) {
		this.managers = managers;
		this.dataSource = dataSource;
	}

	/**
	 * Refuses PostgreSQL connections whose default isolation is above READ COMMITTED: there the
	 * transaction's snapshot predates the lease renewals written meanwhile on other connections, and
	 * the completion's {@code SELECT ... FOR UPDATE} of the record fails with "could not serialize
	 * access due to concurrent update" on every attempt. MariaDB's locking reads see the latest
	 * row at any isolation level. A database that cannot be asked now is not refused here (the
	 * store's own start-up check reports it).
	 */
	@Override
	public void requireUsableBy(String listener) {
		int isolation;
		String product;
		try (Connection connection = this.dataSource.getConnection()) {
			isolation = connection.getTransactionIsolation();
			product = connection.getMetaData().getDatabaseProductName();
		}
		catch (SQLException ex) {
			return;
		}
		if (product != null && product.toLowerCase(Locale.ROOT).contains("postgresql")
				&& isolation > Connection.TRANSACTION_READ_COMMITTED) {
			throw new ExactlyOnceConfigurationException("Listener " + listener + " is transactional, but its "
					+ "PostgreSQL transactions run at " + isolationName(isolation) + ": the lease of its claim is renewed "
					+ "on other connections while the handler runs, so the completion record, written in the handler's "
					+ "transaction, fails with 'could not serialize access due to concurrent update' on every attempt",
					"Run the DataSource at READ COMMITTED (PostgreSQL's default; e.g. remove "
							+ "spring.datasource.hikari.transaction-isolation), or remove transactional = true.");
		}
	}

	private static String isolationName(int isolation) {
		return (isolation == Connection.TRANSACTION_SERIALIZABLE) ? "SERIALIZABLE" : "REPEATABLE READ";
	}

	@Override
	public void run(Body body) throws Throwable {
		PlatformTransactionManager manager = this.managers.getIfUnique();
		if (manager == null) {
			throw new IllegalStateException("A transactional @ExactlyOnceListener needs one PlatformTransactionManager "
					+ "bean (spring-boot-starter-jdbc creates it for the DataSource); there is none or several");
		}
		TransactionStatus status = manager.getTransaction(TransactionDefinition.withDefaults());
		boolean commit;
		try {
			commit = body.run();
		}
		catch (Throwable ex) {
			rollback(manager, status, ex);
			throw ex;
		}
		if (commit) {
			manager.commit(status);
		}
		else {
			manager.rollback(status);
		}
	}

	private static void rollback(PlatformTransactionManager manager, TransactionStatus status, Throwable failure) {
		try {
			manager.rollback(status);
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

}
