package dev.exactlyonce.waits;

import dev.exactlyonce.store.StoreKeyEncoder;

/**
 * One wait of one run of a task, as the waits bucket names it.
 *
 * @param storeKey the task's namespaced key
 * @param run the task's run ({@link dev.exactlyonce.store.IdempotencyRecord#run()})
 * @param name the wait's name
 */
record WaitKey(String storeKey, int run, String name) {

	private static final StoreKeyEncoder PARTS = new StoreKeyEncoder(400);

	/**
	 * The bucket key: {@code <encoded store key>.r<run>.<encoded name>} (encoded parts have no dots).
	 * @return the key
	 */
	String bucketKey() {
		return PARTS.encode(this.storeKey) + ".r" + this.run + "." + PARTS.encode(this.name);
	}

	/**
	 * Where a notice for this wait is kept: next to its decision, overwritten by a later notice.
	 * @return the notice's key
	 */
	WaitKey notice() {
		return new WaitKey(this.storeKey, this.run, this.name + ".notice");
	}

	@Override
	public String toString() {
		return "wait '" + this.name + "' of run " + this.run + " of task '" + this.storeKey + "'";
	}

}
