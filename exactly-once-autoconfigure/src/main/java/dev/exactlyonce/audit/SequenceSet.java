package dev.exactlyonce.audit;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * A set of stream sequences (1 and above) as bits in chunks of 65,536 sequences: dense runs of
 * sequences cost one bit each, a lone sequence one chunk (8 KB), so a reconciliation over
 * millions of records holds megabytes, not the records.
 */
final class SequenceSet {

	private static final int CHUNK_BITS = 16;

	private static final long CHUNK_MASK = (1L << CHUNK_BITS) - 1;

	private final Map<Long, BitSet> chunks = new HashMap<>();

	/** Adds a sequence; sequences below 1 are not kept. */
	void add(long sequence) {
		if (sequence > 0) {
			this.chunks.computeIfAbsent(sequence >>> CHUNK_BITS, (chunk) -> new BitSet())
				.set((int) (sequence & CHUNK_MASK));
		}
	}

	boolean contains(long sequence) {
		BitSet chunk = (sequence > 0) ? this.chunks.get(sequence >>> CHUNK_BITS) : null;
		return chunk != null && chunk.get((int) (sequence & CHUNK_MASK));
	}

	/** The number of sequences in the set. */
	long size() {
		return this.chunks.values().stream().mapToLong(BitSet::cardinality).sum();
	}

}
