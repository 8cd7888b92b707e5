package dev.exactlyonce.benchmark;

import dev.exactlyonce.store.IdempotencyStore;

/**
 * A store under benchmark together with the servers and clients it needs, closed after its run.
 *
 * @param label the name printed in the table
 * @param store the store
 * @param resources what to close afterwards, in order
 */
record BenchmarkedStore(String label, IdempotencyStore store, AutoCloseable... resources) implements AutoCloseable {

	@Override
	public void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

}
