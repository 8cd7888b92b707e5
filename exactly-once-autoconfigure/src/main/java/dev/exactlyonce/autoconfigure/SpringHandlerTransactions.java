package dev.exactlyonce.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import dev.exactlyonce.listener.HandlerTransactions;

/**
 * Transactional listeners' transactions on the application's single
 * {@link PlatformTransactionManager} (a {@code DataSourceTransactionManager}, or a JPA one over the
 * same {@code DataSource}), with the default definition: joins a transaction already open on the
 * thread, else opens one.
 */
final class SpringHandlerTransactions implements HandlerTransactions {

	private final ObjectProvider<PlatformTransactionManager> managers;

	SpringHandlerTransactions(ObjectProvider<PlatformTransactionManager> managers) {
		this.managers = managers;
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
