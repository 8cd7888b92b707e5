package dev.exactlyonce.listener;

/**
 * Runs a transactional listener's handler and completion record in one transaction of the
 * application (see {@link dev.exactlyonce.annotation.ExactlyOnceListener#transactional()}). Kept
 * free of Spring's transaction API so the pipeline needs {@code spring-tx} only when a listener is
 * transactional.
 */
@FunctionalInterface
public interface HandlerTransactions {

	/**
	 * Runs {@code body} in a new transaction: committed when it returns {@code true}, rolled back
	 * when it returns {@code false} or throws (its exception is rethrown as is).
	 * @param body the work
	 * @throws Throwable what the body threw, or the failure of the commit
	 */
	void run(Body body) throws Throwable;

	/**
	 * Fails start-up when these transactions cannot run a transactional listener to completion.
	 * @param listener the listener, as named in messages
	 * @throws dev.exactlyonce.config.ExactlyOnceConfigurationException naming the problem and the fix
	 */
	default void requireUsableBy(String listener) {
	}

	/**
	 * Work run in a transaction.
	 */
	@FunctionalInterface
	interface Body {

		/**
		 * Does the work.
		 * @return {@code true} to commit, {@code false} to roll back
		 * @throws Throwable when the work failed (the transaction rolls back)
		 */
		boolean run() throws Throwable;

	}

}
