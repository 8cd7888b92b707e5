package dev.exactlyonce.takeover;

import java.io.IOException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The instances bucket: one record per live (or lately dead) incarnation, under
 * {@link InstanceIdentity#key()}. A record's age is read on the NATS server's clock (the times the
 * server stamped two entries with), so instances whose clocks disagree still agree on it.
 */
final class InstanceRecords {

	private final KeyValue bucket;

	private final JsonMapper mapper = JsonMapper.builder().build();

	InstanceRecords(KeyValue bucket) {
		this.bucket = bucket;
	}

	/** Writes a record, replacing the key's last. */
	void write(String key, InstanceRecord record) throws IOException, JetStreamApiException {
		this.bucket.put(key, this.mapper.writeValueAsBytes(record));
	}

	Optional<Stored> read(String key) throws IOException, JetStreamApiException {
		KeyValueEntry entry = this.bucket.get(key);
		if (entry == null || entry.getOperation() != KeyValueOperation.PUT || entry.getValue() == null) {
			return Optional.empty();
		}
		try {
			return Optional.of(new Stored(key, entry.getRevision(), entry.getCreated(),
					this.mapper.readValue(entry.getValue(), InstanceRecord.class)));
		}
		catch (JacksonException ex) {
			throw new IOException("record '" + key + "' is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/** The keys of every incarnation whose key starts with {@code prefix}. */
	List<String> keys(String prefix) throws IOException, JetStreamApiException, InterruptedException {
		return this.bucket.keys(prefix + "*");
	}

	/** Deletes a record unless it was rewritten since {@code revision}. */
	void delete(String key, long revision) throws IOException, JetStreamApiException {
		this.bucket.delete(key, revision);
	}

	void delete(String key) throws IOException, JetStreamApiException {
		this.bucket.delete(key);
	}

	/**
	 * A record as stored.
	 * @param key its key
	 * @param revision its revision
	 * @param written when the server stored it
	 * @param record the record
	 */
	record Stored(String key, long revision, ZonedDateTime written, InstanceRecord record) {

		/** How long before {@code other} was written this record was, on the server's clock. */
		Duration ageAt(Stored other) {
			return Duration.between(this.written, other.written);
		}

	}

}
