package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.nats.KvBucketLock;
import dev.exactlyonce.provision.ConfigurationDrift;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Creates the idempotency bucket when it is missing and checks an existing one for every setting
 * the store relies on: start-up fails when the bucket would lose records (memory storage, fewer
 * replicas, a shorter TTL, a size limit that evicts), refuse them (a value size limit below the
 * largest record) or keep older revisions (a scan reads every message of the bucket's stream as a
 * key's latest value) or let a writer erase records it does not name (roll-ups, purges: see
 * {@link KvBucketLock}); harmless differences are logged.
 */
public class NatsKvBucketProvisioner {

	private static final Log logger = LogFactory.getLog(NatsKvBucketProvisioner.class);

	private static final int BUCKET_NOT_FOUND = 10059;

	private final Connection connection;

	private final KeyValueOptions options;

	private final boolean update;

	/**
	 * Creates a provisioner that may close an existing bucket to roll-ups and purges
	 * ({@code exactlyonce.provisioning.mode=create-or-update}).
	 * @param connection the NATS connection
	 * @param requestTimeout how long one bucket operation may take before the store counts as
	 * unavailable ({@code exactlyonce.nats.request-timeout})
	 */
	public NatsKvBucketProvisioner(Connection connection, Duration requestTimeout) {
		this(connection, requestTimeout, true);
	}

	/**
	 * Creates the provisioner.
	 * @param connection the NATS connection
	 * @param requestTimeout how long one bucket operation may take before the store counts as
	 * unavailable ({@code exactlyonce.nats.request-timeout})
	 * @param update whether an existing bucket open to roll-ups or purges is changed (create-or-update)
	 * or fails start-up ({@link KvBucketLock})
	 */
	public NatsKvBucketProvisioner(Connection connection, Duration requestTimeout, boolean update) {
		this.connection = connection;
		this.options = KeyValueOptions.builder().jsRequestTimeout(requestTimeout).build();
		this.update = update;
	}

	/**
	 * Makes sure the bucket exists with the given settings and returns it.
	 * @param spec what the store needs of the bucket
	 * @return the bucket
	 * @throws ExactlyOnceConfigurationException when an existing bucket would lose or refuse
	 * records
	 */
	public KeyValue provision(NatsKvBucketSpec spec) {
		try {
			KeyValueManagement management = this.connection.keyValueManagement(this.options);
			KvBucketLock lock = new KvBucketLock(this.connection, this.options, spec.name(),
					"exactlyonce.store.nats-kv.bucket");
			KeyValueStatus status = findStatus(management, spec.name());
			if (status == null && !create(management, lock, spec)) {
				status = findStatus(management, spec.name());
			}
			if (status != null) {
				lock.enforce(this.update);
				extendTtlIfShorter(status, spec);
				ConfigurationDrift drift = drift(management.getStatus(spec.name()), spec);
				drift.warnings().forEach((warning) -> logger.warn("Idempotency bucket '" + spec.name()
						+ "' on the server: " + warning + "; kept as it is"));
				if (!drift.isEmpty()) {
					throw new ExactlyOnceConfigurationException("Idempotency bucket '" + spec.name()
							+ "' (exactlyonce.store.nats-kv.bucket) cannot keep the records safely: " + drift,
							"Recreate the bucket with the declared settings (delete it, e.g. 'nats kv del "
									+ spec.name() + "', and restart; its records are lost), point "
									+ "exactlyonce.store.nats-kv.bucket at another bucket, or change the named property "
									+ "to match the bucket");
				}
			}
			return this.connection.keyValue(spec.name(), this.options);
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not create or read the idempotency bucket '" + spec.name()
					+ "' (exactlyonce.store.nats-kv.bucket): " + ex.getMessage(), ex);
		}
	}

	/**
	 * Provisions the bucket and opens the store on it.
	 * @param spec what the store needs of the bucket
	 * @param rules the claim rules
	 * @param maxPayload the server's {@code max_payload}
	 * @return the store
	 * @throws ExactlyOnceConfigurationException when an existing bucket would lose or refuse
	 * records
	 */
	public NatsKvIdempotencyStore provisionStore(NatsKvBucketSpec spec, ClaimRules rules, long maxPayload) {
		KeyValue bucket = provision(spec);
		return new NatsKvIdempotencyStore(bucket, scanView(spec), rules, largestValue(bucket, maxPayload));
	}

	/** The largest value the bucket takes: the server's {@code max_payload}, or the bucket's smaller max value size. */
	private long largestValue(KeyValue bucket, long maxPayload) {
		try {
			long maxValueSize = bucket.getStatus().getMaxValueSize();
			return (maxValueSize > 0) ? Math.min(maxPayload, maxValueSize) : maxPayload;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw statusNotReadable(bucket, ex);
		}
		catch (IOException | JetStreamApiException ex) {
			throw statusNotReadable(bucket, ex);
		}
	}

	private static StoreUnavailableException statusNotReadable(KeyValue bucket, Exception ex) {
		return new StoreUnavailableException("NATS KV bucket '" + bucket.getBucketName() + "' status not readable: "
				+ ex.getMessage(), ex);
	}

	/**
	 * The provisioned bucket as {@link NatsKvIdempotencyStore#scan} reads it: the same bucket, whose
	 * requests may take the scan's timeout (60 s) instead of the request timeout. Creating a watch
	 * over every key is one request the server answers only once it has found each key's latest
	 * value: over 5 s with 10,000,000 keys.
	 * @param spec what the store needs of the bucket
	 * @return the bucket for scans
	 */
	public KeyValue scanView(NatsKvBucketSpec spec) {
		try {
			return this.connection.keyValue(spec.name(), KeyValueOptions.builder(this.options)
				.jsRequestTimeout(NatsKvIdempotencyStore.SCAN_TIMEOUT)
				.build());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not open the idempotency bucket '" + spec.name()
					+ "' (exactlyonce.store.nats-kv.bucket) for scans: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Creates the bucket; false when another instance created it first (two instances starting at
	 * once on a new server), in which case the existing bucket is checked like any other.
	 */
	private boolean create(KeyValueManagement management, KvBucketLock lock, NatsKvBucketSpec spec)
			throws IOException, JetStreamApiException {
		try {
			lock.create(KeyValueConfiguration.builder()
				.name(spec.name())
				.description("exactly-once idempotency records")
				.maxHistoryPerKey(1)
				.ttl(spec.ttl())
				.storageType(spec.storage())
				.replicas(spec.replicas())
				.build());
			return true;
		}
		catch (JetStreamApiException ex) {
			if (findStatus(management, spec.name()) != null) {
				return false;
			}
			throw ex;
		}
	}

	/**
	 * Compares the bucket on the server with what the store needs.
	 * @param spec what the store needs of the bucket
	 * @return the drift: differences that lose or refuse records, and harmless warnings
	 * @throws IOException when the server cannot be reached
	 * @throws JetStreamApiException when the server refuses the request, e.g. the bucket is missing
	 */
	public ConfigurationDrift drift(NatsKvBucketSpec spec) throws IOException, JetStreamApiException {
		return drift(this.connection.keyValueManagement(this.options).getStatus(spec.name()), spec);
	}

	/**
	 * Lengthens the TTL of an existing bucket that keeps records for less than the spec (a bucket
	 * made before durable waits, whose records are kept for the longest wait too), when provisioning
	 * may change it: its stream's {@code max_age}, everything else as it is.
	 */
	private void extendTtlIfShorter(KeyValueStatus status, NatsKvBucketSpec spec)
			throws IOException, JetStreamApiException {
		Duration ttl = status.getTtl();
		if (!this.update || ttl == null || ttl.isZero() || ttl.compareTo(spec.ttl()) >= 0) {
			return;
		}
		JetStreamManagement streams = this.connection.jetStreamManagement(this.options.getJetStreamOptions());
		String stream = "KV_" + spec.name();
		StreamConfiguration current = streams.getStreamInfo(stream).getConfiguration();
		streams.updateStream(StreamConfiguration.builder(current).maxAge(spec.ttl()).build());
		logger.info("Idempotency bucket '" + spec.name() + "': TTL lengthened from " + DurationText.of(ttl) + " to "
				+ DurationText.of(spec.ttl()) + " (exactlyonce.store.completed-ttl plus exactlyonce.waits.max-duration)");
	}

	private static ConfigurationDrift drift(KeyValueStatus status, NatsKvBucketSpec spec) {
		List<String> differences = new ArrayList<>();
		List<String> warnings = new ArrayList<>();
		Duration ttl = status.getTtl();
		if (ttl != null && !ttl.isZero() && ttl.compareTo(spec.ttl()) < 0) {
			differences.add("ttl: server " + DurationText.of(ttl) + ", declared " + DurationText.of(spec.ttl()) + " (exactlyonce.store.completed-ttl plus exactlyonce.waits.max-duration): "
					+ "completed records would be forgotten while redeliveries are still possible");
		}
		if (status.getStorageType() != spec.storage()) {
			String storage = "storage: server " + status.getStorageType() + ", declared " + spec.storage()
					+ " (exactlyonce.store.nats-kv.storage)";
			if (status.getStorageType() == StorageType.Memory) {
				differences.add(storage + ": records are lost when the server restarts, and completed tasks run again");
			}
			else {
				warnings.add(storage);
			}
		}
		if (status.getReplicas() != spec.replicas()) {
			String replicas = "replicas: server " + status.getReplicas() + ", declared " + spec.replicas()
					+ " (exactlyonce.store.nats-kv.replicas)";
			if (status.getReplicas() < spec.replicas()) {
				differences.add(replicas + ": records are lost with fewer servers than declared");
			}
			else {
				warnings.add(replicas);
			}
		}
		long maxValueSize = status.getMaxValueSize();
		if (maxValueSize > 0 && maxValueSize < spec.largestRecord()) {
			differences.add("max value size: server " + maxValueSize + " bytes, needed at least "
					+ spec.largestRecord() + " (exactlyonce.store.result-summary-max-length): a larger record is "
					+ "refused, so every claim would be refused or a completion would fail, and tasks are "
					+ "dead-lettered without running");
		}
		StreamConfiguration stream = status.getBackingStreamInfo().getConfiguration();
		differences.addAll(KvBucketLock.openings(stream));
		if (stream.getMaxBytes() > 0 || stream.getMaxMsgs() > 0) {
			String limit = "max bytes: server " + stream.getMaxBytes() + ", max values: server "
					+ stream.getMaxMsgs() + ", declared unlimited";
			if (stream.getDiscardPolicy() == DiscardPolicy.Old) {
				differences.add(limit + ", with discard old: the oldest records are removed before their TTL, and "
						+ "their tasks can run again");
			}
			else {
				warnings.add(limit + ": once full, every claim is refused until records expire");
			}
		}
		if (status.getMaxHistoryPerKey() > 1) {
			differences.add("history: server " + status.getMaxHistoryPerKey() + ", declared 1: a scan (reconciliation, "
					+ "task pages, in-flight claims) could hand on a record's superseded values and report a completed "
					+ "task as stuck; setting the bucket stream KV_" + status.getBucketName()
					+ "'s max messages per subject to 1 keeps every key's latest value");
		}
		return new ConfigurationDrift(differences, warnings);
	}

	private static KeyValueStatus findStatus(KeyValueManagement management, String bucketName)
			throws IOException, JetStreamApiException {
		try {
			return management.getStatus(bucketName);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == BUCKET_NOT_FOUND) {
				return null;
			}
			throw ex;
		}
	}

}
