package dev.exactlyonce.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Keeps the first records of a {@link RecordScanner#scan} in an order, at most a limit of them,
 * and counts every record offered: a page of a large store holds the page, not the store.
 */
public final class FirstRecords implements Consumer<IdempotencyRecord> {

	private final Comparator<IdempotencyRecord> order;

	private final int limit;

	private final PriorityQueue<IdempotencyRecord> kept;

	private long offered;

	/**
	 * Creates an empty selection.
	 * @param order the order whose first records are kept
	 * @param limit how many are kept (at least 0)
	 */
	public FirstRecords(Comparator<IdempotencyRecord> order, int limit) {
		this.order = order;
		this.limit = limit;
		this.kept = new PriorityQueue<>(order.reversed());
	}

	@Override
	public void accept(IdempotencyRecord record) {
		this.offered++;
		this.kept.offer(record);
		if (this.kept.size() > this.limit) {
			this.kept.poll();
		}
	}

	/** The number of records offered so far, kept or not. */
	public long offered() {
		return this.offered;
	}

	/** The records kept, in order. */
	public List<IdempotencyRecord> inOrder() {
		List<IdempotencyRecord> records = new ArrayList<>(this.kept);
		records.sort(this.order);
		return records;
	}

}
