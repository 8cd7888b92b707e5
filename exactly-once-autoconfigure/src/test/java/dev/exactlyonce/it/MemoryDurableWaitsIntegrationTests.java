package dev.exactlyonce.it;

import dev.exactlyonce.testapp.TestInstances;

/**
 * Durable waits on the memory store, whose records live as long as their instance (a task whose
 * instance stopped is unknown to the next one: its signal answers NO_SUCH_TASK).
 */
class MemoryDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	@Override
	protected void configureStore(TestInstances instances) {
		instances.with("exactlyonce.store.type", "memory");
	}

	@Override
	protected boolean storeSharedByInstances() {
		return false;
	}

}
