package dev.exactlyonce.store.natskv;

import java.time.Duration;

import io.nats.client.api.StorageType;

import dev.exactlyonce.store.SealedJournal;

/**
 * What the idempotency store needs of its NATS KV bucket.
 *
 * @param name the bucket ({@code exactlyonce.store.nats-kv.bucket})
 * @param ttl how long records are kept ({@code exactlyonce.store.completed-ttl})
 * @param storage file or memory ({@code exactlyonce.store.nats-kv.storage})
 * @param replicas the replica count ({@code exactlyonce.store.nats-kv.replicas})
 * @param largestRecord the size in bytes of the largest record the store may write
 */
public record NatsKvBucketSpec(String name, Duration ttl, StorageType storage, int replicas, long largestRecord) {

	/** Room for the key (a NATS subject token, under 4 KiB) and the record's fixed fields. */
	private static final long KEY_AND_FIELDS = 8 * 1024;

	/**
	 * Room for the step journal a record keeps inside: its tail (sealed past {@link SealedJournal#SEAL_BYTES})
	 * and the references to sealed parts, each under 200 bytes.
	 */
	private static final long JOURNAL = SealedJournal.SEAL_BYTES + SealedJournal.MAX_SEALED_IN_RECORD * 200L;

	/** The most bytes one character of the result summary takes in JSON (an escaped control character). */
	private static final long BYTES_PER_SUMMARY_CHARACTER = 6;

	/**
	 * The size in bytes of the largest record with a result summary of at most the given length.
	 * @param resultSummaryMaxLength {@code exactlyonce.store.result-summary-max-length}
	 * @return the size in bytes
	 */
	public static long largestRecord(int resultSummaryMaxLength) {
		return KEY_AND_FIELDS + JOURNAL + BYTES_PER_SUMMARY_CHARACTER * resultSummaryMaxLength;
	}

}
