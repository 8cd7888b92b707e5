package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;

/**
 * Creates the idempotency bucket when it is missing and checks that an existing one keeps records
 * long enough. One revision per key is kept: the store only ever reads the latest.
 */
public class NatsKvBucketProvisioner {

	private final Connection connection;

	private final KeyValueOptions options;

	/**
	 * Creates the provisioner.
	 * @param connection the NATS connection
	 * @param requestTimeout how long one bucket operation may take before the store counts as
	 * unavailable ({@code exactlyonce.nats.request-timeout})
	 */
	public NatsKvBucketProvisioner(Connection connection, Duration requestTimeout) {
		this.connection = connection;
		this.options = KeyValueOptions.builder().jsRequestTimeout(requestTimeout).build();
	}

	/**
	 * Makes sure the bucket exists with the given settings and returns it.
	 * @param bucketName the bucket
	 * @param ttl how long records are kept ({@code exactlyonce.store.completed-ttl})
	 * @param storage file or memory storage
	 * @param replicas the replica count
	 * @return the bucket
	 * @throws IllegalStateException when an existing bucket keeps records for less than {@code ttl}
	 */
	public KeyValue provision(String bucketName, Duration ttl, StorageType storage, int replicas) {
		try {
			KeyValueManagement management = this.connection.keyValueManagement(this.options);
			KeyValueStatus status = findStatus(management, bucketName);
			if (status == null) {
				management.create(KeyValueConfiguration.builder()
					.name(bucketName)
					.description("exactly-once idempotency records")
					.maxHistoryPerKey(1)
					.ttl(ttl)
					.storageType(storage)
					.replicas(replicas)
					.build());
			}
			else {
				checkTtl(bucketName, status.getTtl(), ttl);
			}
			return this.connection.keyValue(bucketName, this.options);
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not create or read the idempotency bucket '" + bucketName
					+ "' (exactlyonce.store.nats-kv.bucket): " + ex.getMessage(), ex);
		}
	}

	private static KeyValueStatus findStatus(KeyValueManagement management, String bucketName)
			throws IOException, JetStreamApiException {
		try {
			return management.getStatus(bucketName);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == 10059) {
				return null;
			}
			throw ex;
		}
	}

	private static void checkTtl(String bucketName, Duration actual, Duration wanted) {
		boolean keepsForever = actual == null || actual.isZero();
		if (!keepsForever && actual.compareTo(wanted) < 0) {
			throw new IllegalStateException("Idempotency bucket '" + bucketName + "' keeps records for " + actual
					+ " but exactlyonce.store.completed-ttl is " + wanted
					+ ": completed records would be forgotten while redeliveries are still possible. "
					+ "Recreate the bucket or lower exactlyonce.store.completed-ttl.");
		}
	}

}
