package dev.exactlyonce.benchmark;

import dev.exactlyonce.store.IdempotencyStore;

/**
 * A store the scale benchmark grows, with its own server: it starts holding one record written
 * through the store, {@link ScaleRecords#templateKey()}, whose stored form {@link #fill} replicates,
 * and gives the figures only it can measure.
 */
interface ScaledStore extends AutoCloseable {

	/**
	 * The name printed above the store's table.
	 * @return the label
	 */
	String label();

	/**
	 * What the template record looks like as stored, printed above the table.
	 * @return a short description
	 */
	String templateDescription();

	/**
	 * The store, to claim and scan through; a new instance after {@link #restartSeconds}.
	 * @return the store
	 */
	IdempotencyStore store();

	/**
	 * Bulk-loads completed records, byte for byte as the store writes them.
	 * @param from the index of the first {@link ScaleRecords#filledKey filled key}
	 * @param to the index after the last
	 * @throws Exception when the store refuses a record
	 */
	void fill(long from, long to) throws Exception;

	/**
	 * The store's own cost of a record: its size in the stream, or the memory its server took for it.
	 * @return bytes per record, {@code NaN} when not known yet
	 * @throws Exception when the server cannot be asked
	 */
	double bytesPerRecord() throws Exception;

	/**
	 * The server's files per record.
	 * @return bytes per record, {@code NaN} for a store that keeps nothing on disk
	 * @throws Exception when the files cannot be read
	 */
	default double diskBytesPerRecord() throws Exception {
		return Double.NaN;
	}

	/**
	 * Stops the server gracefully and starts it again on its files, timing how long a stored record
	 * takes to be readable again.
	 * @param storedKey a key the store holds
	 * @return seconds from the new process's start until that key reads, {@code NaN} for a store
	 * that does not keep its records across restarts
	 * @throws Exception when the server does not come back
	 */
	default double restartSeconds(String storedKey) throws Exception {
		return Double.NaN;
	}

}
