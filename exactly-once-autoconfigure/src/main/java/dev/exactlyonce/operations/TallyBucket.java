package dev.exactlyonce.operations;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.StorageType;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.nats.KvBucketLock;

/**
 * The NATS KV bucket that keeps the monthly counts of every instance: one key per month
 * ({@code yyyy-MM}), a JSON {@link MonthlyCounts}, added to with a compare-and-set on the key's
 * revision, so instances adding at once never lose each other's counts and restarts lose nothing
 * already added. Created (file storage, one revision per key, no TTL, closed to roll-ups and purges:
 * {@link KvBucketLock}) when missing, by {@link #open()} at start-up or on first use.
 */
public class TallyBucket {

	private static final int NOT_FOUND = 10059;

	private static final int WRONG_LAST_SEQUENCE = 10071;

	/** What a replicated bucket may answer instead of 10071 when a created key exists (nats.go #2097). */
	private static final int KEY_EXISTS_REPLICATED = 10164;

	private static final int CAS_ROUNDS = 20;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final Connection connection;

	private final String name;

	private final boolean update;

	private volatile KeyValue bucket;

	/**
	 * Creates the bucket's client.
	 * @param connection the NATS connection
	 * @param name the bucket ({@code exactlyonce.operations.tally-bucket})
	 * @param update whether an existing bucket open to roll-ups or purges is changed
	 * ({@code exactlyonce.provisioning.mode=create-or-update}) or refused ({@link KvBucketLock})
	 */
	public TallyBucket(Connection connection, String name, boolean update) {
		this.connection = connection;
		this.name = name;
		this.update = update;
	}

	/**
	 * The bucket's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Opens the bucket now, creating it when missing, so that a server that refuses it (a NATS user
	 * without the bucket's permissions) shows at start-up instead of at every flush.
	 * @return this bucket, open
	 * @throws IllegalStateException when the bucket could not be created or read (the cause says why)
	 * @throws ExactlyOnceConfigurationException when the bucket lets a writer erase records it does
	 * not name and may not or could not be changed
	 */
	public TallyBucket open() {
		try {
			bucket();
			return this;
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not create or read the monthly tally bucket '" + this.name + "'", ex);
		}
	}

	/**
	 * Adds counts to a month's.
	 * @param month {@code yyyy-MM}
	 * @param counts what to add
	 * @throws IOException when the server did not answer (the addition may have been applied)
	 * @throws JetStreamApiException when the server refused
	 */
	public void add(String month, MonthlyCounts counts) throws IOException, JetStreamApiException {
		KeyValue kv = bucket();
		for (int round = 0; round < CAS_ROUNDS; round++) {
			KeyValueEntry entry = kv.get(month);
			boolean exists = entry != null && entry.getOperation() == KeyValueOperation.PUT;
			MonthlyCounts sum = (exists ? decode(entry) : MonthlyCounts.ZERO).plus(counts);
			try {
				if (exists) {
					kv.update(month, this.mapper.writeValueAsBytes(sum), entry.getRevision());
				}
				else {
					kv.create(month, this.mapper.writeValueAsBytes(sum));
				}
				return;
			}
			catch (JetStreamApiException ex) {
				if (ex.getApiErrorCode() != WRONG_LAST_SEQUENCE && ex.getApiErrorCode() != KEY_EXISTS_REPLICATED) {
					throw ex;
				}
			}
		}
		throw new IOException("Monthly counts of " + month + " in bucket '" + this.name
				+ "' kept losing compare-and-set races");
	}

	/**
	 * Every month's counts, oldest month first.
	 * @return the rows
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when the server refused
	 */
	public List<MonthlyRow> rows() throws IOException, JetStreamApiException {
		KeyValue kv = bucket();
		List<MonthlyRow> rows = new ArrayList<>();
		try {
			for (String month : kv.keys().stream().sorted().toList()) {
				KeyValueEntry entry = kv.get(month);
				if (entry != null && entry.getOperation() == KeyValueOperation.PUT) {
					rows.add(MonthlyRow.of(month, decode(entry)));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("Interrupted while reading bucket '" + this.name + "'", ex);
		}
		return rows;
	}

	private MonthlyCounts decode(KeyValueEntry entry) {
		return this.mapper.readValue(entry.getValue(), MonthlyCounts.class);
	}

	private KeyValue bucket() throws IOException, JetStreamApiException {
		KeyValue kv = this.bucket;
		if (kv == null) {
			KeyValueManagement management = this.connection.keyValueManagement();
			KvBucketLock lock = new KvBucketLock(this.connection, KeyValueOptions.builder().build(), this.name,
					"exactlyonce.operations.tally-bucket");
			if (exists(management)) {
				lock.enforce(this.update);
			}
			else {
				try {
					lock.create(KeyValueConfiguration.builder()
						.name(this.name)
						.storageType(StorageType.File)
						.maxHistoryPerKey(1)
						.build());
				}
				catch (JetStreamApiException ex) {
					// another instance created it first: fine when it exists now
					if (!exists(management)) {
						throw ex;
					}
					lock.enforce(this.update);
				}
			}
			kv = this.connection.keyValue(this.name);
			this.bucket = kv;
		}
		return kv;
	}

	private boolean exists(KeyValueManagement management) throws IOException, JetStreamApiException {
		try {
			management.getStatus(this.name);
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == NOT_FOUND) {
				return false;
			}
			throw ex;
		}
	}

}
