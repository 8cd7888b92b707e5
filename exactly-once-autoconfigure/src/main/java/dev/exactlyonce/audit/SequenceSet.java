package dev.exactlyonce.audit;

import java.util.BitSet;

/**
 * A set of stream sequences at or below a ceiling (the stream's last sequence), one bit per
 * sequence between the lowest one added and the ceiling, so a reconciliation over millions of
 * records holds megabytes, not the records. Sequences above the ceiling, below 1, or more than
 * {@link Integer#MAX_VALUE} below it are not kept.
 */
final class SequenceSet {

	private final long ceiling;

	private final BitSet bits = new BitSet();

	SequenceSet(long ceiling) {
		this.ceiling = ceiling;
	}

	void add(long sequence) {
		if (isKept(sequence)) {
			this.bits.set((int) (this.ceiling - sequence));
		}
	}

	boolean contains(long sequence) {
		return isKept(sequence) && this.bits.get((int) (this.ceiling - sequence));
	}

	/** The number of sequences in the set. */
	long size() {
		return this.bits.cardinality();
	}

	private boolean isKept(long sequence) {
		return sequence > 0 && sequence <= this.ceiling && this.ceiling - sequence < Integer.MAX_VALUE;
	}

}
