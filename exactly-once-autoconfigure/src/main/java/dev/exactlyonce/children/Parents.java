package dev.exactlyonce.children;

import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.OperationRefusedException;

/** Finds the parent a child task's headers name, in the idempotency store of this application. */
final class Parents {

	private final OperatedConsumers consumers;

	Parents(OperatedConsumers consumers) {
		this.consumers = consumers;
	}

	/**
	 * The parent's namespaced key.
	 * @param parent the parent the headers name
	 * @param where the child's message, for the error
	 * @return the store key
	 * @throws IllegalStateException when this application does not declare the parent's consumer
	 */
	String storeKey(ParentHeaders parent, String where) {
		try {
			return this.consumers.storeKey(parent.consumer(), parent.key());
		}
		catch (OperationRefusedException ex) {
			throw new IllegalStateException("The child task at " + where + " names parent " + parent + ", whose "
					+ "consumer this application does not declare, so its result cannot reach the parent: run "
					+ "children in the application that declares the parent's consumer (docs/children.md)", ex);
		}
	}

}
