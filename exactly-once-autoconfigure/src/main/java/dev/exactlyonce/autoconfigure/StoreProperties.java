package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import dev.exactlyonce.provision.JetStreamConfigurations;
import dev.exactlyonce.provision.StorageKind;
import dev.exactlyonce.store.jdbc.JdbcRecordTable;
import dev.exactlyonce.store.natskv.NatsKvBucketSpec;

/**
 * Idempotency store settings, bound from {@code exactlyonce.store.*}.
 */
public class StoreProperties {

	/** Which store keeps claims and completion records. */
	private StoreType type = StoreType.NATS_KV;

	/** How long completion records are kept; must outlive every redelivery. */
	private Duration completedTtl = Duration.ofHours(72);

	/**
	 * How long a claim stays valid without renewal before it counts as abandoned: how soon a task
	 * whose worker died resumes elsewhere, and how long a store outage may last before another
	 * instance could take a running task over.
	 */
	private Duration lease = Duration.ofSeconds(20);

	/** Maximum size in characters of a handler's result summary kept in the record. */
	private int resultSummaryMaxLength = 1024;

	/** NATS KV store settings. */
	private final NatsKv natsKv = new NatsKv();

	/** Redis store settings. */
	private final Redis redis = new Redis();

	/** Firestore store settings. */
	private final Firestore firestore = new Firestore();

	/** JDBC store settings. */
	private final Jdbc jdbc = new Jdbc();

	public StoreType getType() {
		return this.type;
	}

	public void setType(StoreType type) {
		this.type = type;
	}

	public Duration getCompletedTtl() {
		return this.completedTtl;
	}

	public void setCompletedTtl(Duration completedTtl) {
		this.completedTtl = completedTtl;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public int getResultSummaryMaxLength() {
		return this.resultSummaryMaxLength;
	}

	public void setResultSummaryMaxLength(int resultSummaryMaxLength) {
		this.resultSummaryMaxLength = resultSummaryMaxLength;
	}

	public NatsKv getNatsKv() {
		return this.natsKv;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Firestore getFirestore() {
		return this.firestore;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	/**
	 * What the NATS KV store needs of its bucket: entries kept completed-ttl, plus the longest wait.
	 * @param keptLonger how much longer records are kept ({@link WaitsProperties#keptLonger()})
	 * @return the bucket's spec
	 */
	public NatsKvBucketSpec toBucketSpec(Duration keptLonger) {
		return new NatsKvBucketSpec(this.natsKv.getBucket(), this.completedTtl.plus(keptLonger),
				JetStreamConfigurations.storage(this.natsKv.getStorage()), this.natsKv.getReplicas(),
				NatsKvBucketSpec.largestRecord(this.resultSummaryMaxLength));
	}

	/** NATS KV store settings. */
	public static class NatsKv {

		/** Bucket holding the records. */
		private String bucket = "exactly-once-idempotency";

		/** Number of bucket replicas (1 for a single server, 3 for a cluster). */
		private int replicas = 1;

		/** Bucket storage; file survives a server restart, memory does not. */
		private StorageKind storage = StorageKind.FILE;

		public String getBucket() {
			return this.bucket;
		}

		public void setBucket(String bucket) {
			this.bucket = bucket;
		}

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public StorageKind getStorage() {
			return this.storage;
		}

		public void setStorage(StorageKind storage) {
			this.storage = storage;
		}

	}

	/** Redis store settings. */
	public static class Redis {

		/** Prefix of the Redis keys holding the records (one hash per idempotency key). */
		private String keyPrefix = "exactlyonce:idempotency:";

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

	}

	/** Firestore store settings. */
	public static class Firestore {

		/**
		 * Collection holding the records; long step journals seal older entries in
		 * {@code <collection>_journal}. Give both a TTL policy on the expiresAt field.
		 */
		private String collection = "task-idempotency";

		/** How long one Firestore operation may take before the store counts as unavailable. */
		private Duration timeout = Duration.ofSeconds(10);

		public String getCollection() {
			return this.collection;
		}

		public void setCollection(String collection) {
			this.collection = collection;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/** JDBC store settings. */
	public static class Jdbc {

		/** Table holding the records (optionally schema-qualified: schema.table); written into SQL unquoted. */
		private String tableName = JdbcRecordTable.DEFAULT_NAME;

		/** When to create the table at start-up: embedded (only in an embedded database), always, or never. */
		private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

		/** How often expired records are deleted. */
		private Duration purgeInterval = Duration.ofMinutes(1);

		/** The most expired records one purge deletes (oldest first). */
		private int purgeBatchSize = 1000;

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public InitializeSchema getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(InitializeSchema initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public Duration getPurgeInterval() {
			return this.purgeInterval;
		}

		public void setPurgeInterval(Duration purgeInterval) {
			this.purgeInterval = purgeInterval;
		}

		public int getPurgeBatchSize() {
			return this.purgeBatchSize;
		}

		public void setPurgeBatchSize(int purgeBatchSize) {
			this.purgeBatchSize = purgeBatchSize;
		}

	}

	/** When the JDBC store creates its table, like {@code spring.session.jdbc.initialize-schema}. */
	public enum InitializeSchema {

		/** Only in an embedded database (H2, HSQLDB, Derby). */
		EMBEDDED,

		/** In every database, when the table is missing. */
		ALWAYS,

		/** Never: the application's migrations (Flyway, Liquibase) create it. */
		NEVER

	}

	/** Where the idempotency records are kept. */
	public enum StoreType {

		/** A NATS JetStream key-value bucket (needs no other infrastructure). */
		NATS_KV,

		/** Redis, through the application's RedisConnectionFactory. */
		REDIS,

		/** Google Cloud Firestore, through the application's Firestore bean. */
		FIRESTORE,

		/** A table in the application's relational database, through its DataSource. */
		JDBC,

		/** A map in this JVM; for tests and local runs only. */
		MEMORY

	}

}
