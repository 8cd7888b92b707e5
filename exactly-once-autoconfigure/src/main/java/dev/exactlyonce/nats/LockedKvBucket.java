package dev.exactlyonce.nats;

import java.io.IOException;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Opens one of the starter's own NATS KV buckets (file storage, one revision per key, entries kept
 * for a TTL), creating it when missing and allowed to, always closed to roll-ups, purges and message
 * deletes ({@link KvBucketLock}), and reads one key so that a user not allowed to read it fails
 * start-up rather than later.
 */
public final class LockedKvBucket {

	/** The API error of a bucket that does not exist. */
	public static final int BUCKET_NOT_FOUND = 10059;

	private static final String STARTUP_PROBE_KEY = "startup-probe";

	private LockedKvBucket() {
	}

	/**
	 * Opens the bucket.
	 * @param connection the connection
	 * @param spec what the bucket is and may do
	 * @return the bucket
	 * @throws ExactlyOnceConfigurationException when the bucket is missing and may not be created, or
	 * open to roll-ups or purges and may not or could not be closed
	 * @throws IllegalStateException when the server refused or did not answer (the cause says why)
	 */
	public static KeyValue open(Connection connection, Spec spec) {
		KeyValueOptions options = KeyValueOptions.builder().jsRequestTimeout(spec.requestTimeout()).build();
		try {
			KeyValueManagement management = connection.keyValueManagement(options);
			KvBucketLock lock = new KvBucketLock(connection, options, spec.name(), spec.property());
			if (exists(management, spec.name())) {
				lock.enforce(spec.create());
			}
			else {
				if (!spec.create()) {
					throw new ExactlyOnceConfigurationException("The NATS KV bucket '" + spec.name() + "' ("
							+ spec.property() + ") does not exist and exactlyonce.provisioning.mode does not create it",
							"Create it where the streams are provisioned (a start with exactlyonce.provisioning.mode="
									+ "create-or-update does)" + spec.otherwise());
				}
				createUnlessCreatedMeanwhile(management, lock, spec);
			}
			KeyValue bucket = connection.keyValue(spec.name(), options);
			bucket.get(STARTUP_PROBE_KEY);
			return bucket;
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not create or read the NATS KV bucket '" + spec.name() + "' ("
					+ spec.property() + "): " + ex.getMessage(), ex);
		}
	}

	private static void createUnlessCreatedMeanwhile(KeyValueManagement management, KvBucketLock lock, Spec spec)
			throws IOException, JetStreamApiException {
		try {
			lock.create(KeyValueConfiguration.builder()
				.name(spec.name())
				.description(spec.description())
				.storageType(StorageType.File)
				.maxHistoryPerKey(1)
				.ttl(spec.ttl())
				.build());
		}
		catch (JetStreamApiException ex) {
			if (!exists(management, spec.name())) {
				throw ex;
			}
			lock.enforce(true);
		}
	}

	/**
	 * Whether a bucket exists.
	 * @param management the bucket management
	 * @param name the bucket
	 * @return {@code true} when it does
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when it refused
	 */
	public static boolean exists(KeyValueManagement management, String name) throws IOException, JetStreamApiException {
		try {
			management.getStatus(name);
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == BUCKET_NOT_FOUND) {
				return false;
			}
			throw ex;
		}
	}

	/**
	 * What a bucket is and what may be done to it.
	 * @param name the bucket's name
	 * @param property the property that names it, for messages
	 * @param description the bucket's description on the server
	 * @param ttl how long its entries are kept
	 * @param requestTimeout how long one bucket operation may take
	 * @param create whether a missing bucket is created and an open one closed
	 * @param otherwise what else a user can do when the bucket is missing and may not be created, as
	 * the end of a sentence (e.g. {@code ", or set x=false (...)."}), or {@code "."}
	 */
	public record Spec(String name, String property, String description, Duration ttl, Duration requestTimeout,
			boolean create, String otherwise) {
	}

}
