package dev.exactlyonce.waits;

import java.io.IOException;
import java.util.Optional;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The decisions of signal waits, in a NATS KV bucket: one key per wait of a run, written with
 * {@code create}, so that of a signal and the wait's timeout (or two signals) exactly one is
 * stored, whichever instance, sender or timer writes first, and every later reader sees the same.
 * A signal that arrives before its wait is reached is simply the decision the wait finds.
 */
class WaitDecisions {

	/** The API error of a {@code create} of a key that exists. */
	private static final int KEY_EXISTS = 10071;

	private static final Log logger = LogFactory.getLog(WaitDecisions.class);

	private final KeyValue bucket;

	private final JsonMapper mapper = JsonMapper.builder().build();

	WaitDecisions(KeyValue bucket) {
		this.bucket = bucket;
	}

	/**
	 * Reads the decision of a wait.
	 * @throws WaitsUnavailableException when NATS did not answer
	 */
	Optional<WaitDecision> find(WaitKey key) {
		KeyValueEntry entry;
		try {
			entry = this.bucket.get(key.bucketKey());
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new WaitsUnavailableException("The decision of " + key + " was not read from bucket '"
					+ this.bucket.getBucketName() + "': " + ex.getMessage(), ex);
		}
		if (entry == null || entry.getOperation() != KeyValueOperation.PUT || entry.getValue() == null) {
			return Optional.empty();
		}
		try {
			return Optional.of(this.mapper.readValue(entry.getValue(), WaitDecision.class));
		}
		catch (JacksonException ex) {
			throw new WaitsUnavailableException("The decision of " + key + " in bucket '" + this.bucket.getBucketName()
					+ "' is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Stores a decision unless the wait has one: a compare-and-set (KV {@code create}).
	 * @return the decision that holds: {@code decision}, or the one stored before it
	 * @throws WaitsUnavailableException when NATS did not answer (the decision may have been stored:
	 * read it again)
	 */
	WaitDecision decide(WaitKey key, WaitDecision decision) {
		try {
			this.bucket.create(key.bucketKey(), this.mapper.writeValueAsBytes(decision));
			return decision;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() != KEY_EXISTS) {
				throw unavailable(key, ex);
			}
		}
		catch (IOException | RuntimeException ex) {
			// the create may have landed: what is stored now is the answer
			return find(key).orElseThrow(() -> unavailable(key, ex));
		}
		return find(key).orElseThrow(() -> new WaitsUnavailableException("The decision of " + key + " exists in "
				+ "bucket '" + this.bucket.getBucketName() + "' but could not be read back", null));
	}

	/**
	 * Stores a notice for a wait ({@link WaitKey#notice()}), replacing an earlier one: it never
	 * decides the wait, whose decision stays free for a later signal.
	 * @throws WaitsUnavailableException when NATS did not answer (the notice may have been stored)
	 */
	void notice(WaitKey key, WaitDecision notice) {
		try {
			this.bucket.put(key.notice().bucketKey(), this.mapper.writeValueAsBytes(notice));
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw unavailable(key.notice(), ex);
		}
	}

	/**
	 * Reads the notice of a wait.
	 * @throws WaitsUnavailableException when NATS did not answer
	 */
	Optional<WaitDecision> findNotice(WaitKey key) {
		return find(key.notice());
	}

	/**
	 * Removes a wait's decision if it is still this one (a signal its wait could not read), so that
	 * the wait can be decided again; a failure is logged: the next attempt that reads it tries again.
	 */
	void discard(WaitKey key, WaitDecision decision) {
		try {
			KeyValueEntry entry = this.bucket.get(key.bucketKey());
			if (entry != null && entry.getOperation() == KeyValueOperation.PUT && entry.getValue() != null
					&& decision.equals(this.mapper.readValue(entry.getValue(), WaitDecision.class))) {
				this.bucket.delete(key.bucketKey(), entry.getRevision());
			}
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			logger.warn("The unreadable decision of " + key + " was not removed from bucket '"
					+ this.bucket.getBucketName() + "' (" + ex.getMessage() + "); the next attempt tries again");
		}
	}

	private WaitsUnavailableException unavailable(WaitKey key, Exception ex) {
		return new WaitsUnavailableException("The decision of " + key + " was not stored in bucket '"
				+ this.bucket.getBucketName() + "': " + ex.getMessage(), ex);
	}

}
