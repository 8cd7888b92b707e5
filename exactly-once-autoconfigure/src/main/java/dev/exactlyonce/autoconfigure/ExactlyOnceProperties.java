package dev.exactlyonce.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for exactly-once processing over NATS JetStream, bound from
 * {@code exactlyonce.*}.
 */
@ConfigurationProperties("exactlyonce")
public class ExactlyOnceProperties {

	/** NATS connection settings. */
	private final Nats nats = new Nats();

	/** Idempotency store settings. */
	private final Store store = new Store();

	/** Streams to provision, keyed by stream name. */
	private final Map<String, StreamSpec> streams = new LinkedHashMap<>();

	/** Durable pull consumers to provision and listen on, keyed by durable name. */
	private final Map<String, ConsumerSpec> consumers = new LinkedHashMap<>();

	/** How declared streams and consumers are reconciled with the server at start-up. */
	private final Provisioning provisioning = new Provisioning();

	/** Publisher settings. */
	private final Publisher publisher = new Publisher();

	/** Dead-letter settings. */
	private final DeadLetter deadLetter = new DeadLetter();

	/** Listener container settings. */
	private final Listener listener = new Listener();

	/** Durable step settings ({@code ExactlyOnceContext.step}). */
	private final Steps steps = new Steps();

	/** Name of this application instance in claims; host name and process id when unset. */
	private String instanceId;

	public Nats getNats() {
		return this.nats;
	}

	public Store getStore() {
		return this.store;
	}

	public Map<String, StreamSpec> getStreams() {
		return this.streams;
	}

	public Map<String, ConsumerSpec> getConsumers() {
		return this.consumers;
	}

	public Provisioning getProvisioning() {
		return this.provisioning;
	}

	public Publisher getPublisher() {
		return this.publisher;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Steps getSteps() {
		return this.steps;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	/** Durable step settings. */
	public static class Steps {

		/** Largest result a step may journal, as JSON; store large outputs elsewhere and journal a reference. */
		private DataSize maxResultSize = DataSize.ofKilobytes(64);

		public DataSize getMaxResultSize() {
			return this.maxResultSize;
		}

		public void setMaxResultSize(DataSize maxResultSize) {
			this.maxResultSize = maxResultSize;
		}

	}

	/** NATS connection settings. */
	public static class Nats {

		/** NATS server URLs. */
		private List<String> servers = new ArrayList<>(List.of("nats://localhost:4222"));

		/** Connection name shown in the server's monitoring. */
		private String connectionName = "exactly-once";

		/** User name for user/password authentication. */
		private String username;

		/** Password for user/password authentication. */
		private String password;

		/** Token for token authentication. */
		private String token;

		/** Path to a NATS credentials (JWT + NKey) file. */
		private Path credentialsFile;

		/** Timeout for establishing the connection. */
		private Duration connectionTimeout = Duration.ofSeconds(5);

		/** Timeout of JetStream API requests and of each publish attempt. */
		private Duration requestTimeout = Duration.ofSeconds(5);

		/** Wait between reconnect attempts. */
		private Duration reconnectWait = Duration.ofSeconds(2);

		/** TLS settings. */
		private final Tls tls = new Tls();

		public List<String> getServers() {
			return this.servers;
		}

		public void setServers(List<String> servers) {
			this.servers = servers;
		}

		public String getConnectionName() {
			return this.connectionName;
		}

		public void setConnectionName(String connectionName) {
			this.connectionName = connectionName;
		}

		public String getUsername() {
			return this.username;
		}

		public void setUsername(String username) {
			this.username = username;
		}

		public String getPassword() {
			return this.password;
		}

		public void setPassword(String password) {
			this.password = password;
		}

		public String getToken() {
			return this.token;
		}

		public void setToken(String token) {
			this.token = token;
		}

		public Path getCredentialsFile() {
			return this.credentialsFile;
		}

		public void setCredentialsFile(Path credentialsFile) {
			this.credentialsFile = credentialsFile;
		}

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

		public Duration getRequestTimeout() {
			return this.requestTimeout;
		}

		public void setRequestTimeout(Duration requestTimeout) {
			this.requestTimeout = requestTimeout;
		}

		public Duration getReconnectWait() {
			return this.reconnectWait;
		}

		public void setReconnectWait(Duration reconnectWait) {
			this.reconnectWait = reconnectWait;
		}

		public Tls getTls() {
			return this.tls;
		}

	}

	/** TLS settings of the NATS connection. */
	public static class Tls {

		/** Whether to connect with TLS using the JVM's default trust store. */
		private boolean enabled;

		/** Name of a Spring SSL bundle (spring.ssl.bundle.*) to build the TLS context from. */
		private String bundle;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getBundle() {
			return this.bundle;
		}

		public void setBundle(String bundle) {
			this.bundle = bundle;
		}

	}

	/** Idempotency store settings. */
	public static class Store {

		/** Which store keeps claims and completion records. */
		private StoreType type = StoreType.NATS_KV;

		/** How long completion records are kept; must outlive every redelivery. */
		private Duration completedTtl = Duration.ofHours(72);

		/** How long a claim stays valid without renewal before it counts as abandoned. */
		private Duration lease = Duration.ofMinutes(2);

		/** Maximum size in characters of a handler's result summary kept in the record. */
		private int resultSummaryMaxLength = 1024;

		/** NATS KV store settings. */
		private final NatsKv natsKv = new NatsKv();

		/** Redis store settings. */
		private final Redis redis = new Redis();

		/** Firestore store settings. */
		private final Firestore firestore = new Firestore();

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

		/** Collection holding the records; give it a TTL policy on the expiresAt field. */
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

	/** Settings of one stream. */
	public static class StreamSpec {

		/** Subjects the stream captures. */
		private List<String> subjects = new ArrayList<>();

		/** Retention policy. */
		private Retention retention = Retention.LIMITS;

		/** Storage of the stream's messages. */
		private StorageKind storage = StorageKind.FILE;

		/** Maximum age of a message; unlimited when unset. */
		private Duration maxAge;

		/** Window in which a repeated Nats-Msg-Id is recognised as a duplicate. */
		private Duration duplicateWindow = Duration.ofHours(1);

		/** Number of stream replicas. */
		private int replicas = 1;

		/** Maximum messages kept per subject; unlimited when unset. */
		private Long maxMsgsPerSubject;

		/** Maximum number of messages; unlimited when unset. */
		private Long maxMsgs;

		/** Maximum total size in bytes; unlimited when unset. */
		private Long maxBytes;

		/** What the stream discards when a limit is reached. */
		private Discard discard = Discard.OLD;

		/** With discard new, apply the per-subject limit to new messages too. */
		private boolean discardNewPerSubject;

		public List<String> getSubjects() {
			return this.subjects;
		}

		public void setSubjects(List<String> subjects) {
			this.subjects = subjects;
		}

		public Retention getRetention() {
			return this.retention;
		}

		public void setRetention(Retention retention) {
			this.retention = retention;
		}

		public StorageKind getStorage() {
			return this.storage;
		}

		public void setStorage(StorageKind storage) {
			this.storage = storage;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

		public Duration getDuplicateWindow() {
			return this.duplicateWindow;
		}

		public void setDuplicateWindow(Duration duplicateWindow) {
			this.duplicateWindow = duplicateWindow;
		}

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Long getMaxMsgsPerSubject() {
			return this.maxMsgsPerSubject;
		}

		public void setMaxMsgsPerSubject(Long maxMsgsPerSubject) {
			this.maxMsgsPerSubject = maxMsgsPerSubject;
		}

		public Long getMaxMsgs() {
			return this.maxMsgs;
		}

		public void setMaxMsgs(Long maxMsgs) {
			this.maxMsgs = maxMsgs;
		}

		public Long getMaxBytes() {
			return this.maxBytes;
		}

		public void setMaxBytes(Long maxBytes) {
			this.maxBytes = maxBytes;
		}

		public Discard getDiscard() {
			return this.discard;
		}

		public void setDiscard(Discard discard) {
			this.discard = discard;
		}

		public boolean isDiscardNewPerSubject() {
			return this.discardNewPerSubject;
		}

		public void setDiscardNewPerSubject(boolean discardNewPerSubject) {
			this.discardNewPerSubject = discardNewPerSubject;
		}

	}

	/** Settings of one durable pull consumer. */
	public static class ConsumerSpec {

		/** Stream the consumer reads. */
		private String stream;

		/** Subject filter; the whole stream when unset. */
		private String filterSubject;

		/** How long the server waits for an ack before redelivering. */
		private Duration ackWait = Duration.ofSeconds(30);

		/** Maximum deliveries of one message; must exceed the number of backoff entries. */
		private long maxDeliver = 5;

		/** Redelivery delays per attempt; the server then uses backoff[0] as the first ack wait. */
		private List<Duration> backoff = new ArrayList<>();

		/** Maximum unacknowledged messages, including failed ones waiting out their retry delay. */
		private long maxAckPending = 1000;

		/** Where a new consumer starts reading. */
		private DeliverFrom deliverPolicy = DeliverFrom.ALL;

		/** Interval of working acks and lease renewals; a third of the shorter of effective ack wait and lease when unset. */
		private Duration workingAckInterval;

		/** Number of messages handled in parallel by one application instance. */
		private int concurrency = 1;

		/** What to do with a claim whose previous attempt died mid-work. */
		private AbandonedPolicy onAbandoned = AbandonedPolicy.RETRY;

		/** Maximum time a single pull request waits for messages. */
		private Duration pullExpiry = Duration.ofSeconds(2);

		/** Redelivery delay after a failed attempt when no backoff is declared. */
		private Duration retryDelay = Duration.ofSeconds(5);

		/** Subject dead letters are published on; deadletter.STREAM.CONSUMER when unset. */
		private String deadLetterSubject;

		/** Largest payload handed to the listener; larger messages are dead-lettered unread. */
		private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

		/** Exception types (and subtypes) that dead-letter this consumer's messages at once. */
		private List<Class<? extends Throwable>> nonRetryableExceptions = new ArrayList<>();

		public String getStream() {
			return this.stream;
		}

		public void setStream(String stream) {
			this.stream = stream;
		}

		public String getFilterSubject() {
			return this.filterSubject;
		}

		public void setFilterSubject(String filterSubject) {
			this.filterSubject = filterSubject;
		}

		public Duration getAckWait() {
			return this.ackWait;
		}

		public void setAckWait(Duration ackWait) {
			this.ackWait = ackWait;
		}

		public long getMaxDeliver() {
			return this.maxDeliver;
		}

		public void setMaxDeliver(long maxDeliver) {
			this.maxDeliver = maxDeliver;
		}

		public List<Duration> getBackoff() {
			return this.backoff;
		}

		public void setBackoff(List<Duration> backoff) {
			this.backoff = backoff;
		}

		public long getMaxAckPending() {
			return this.maxAckPending;
		}

		public void setMaxAckPending(long maxAckPending) {
			this.maxAckPending = maxAckPending;
		}

		public DeliverFrom getDeliverPolicy() {
			return this.deliverPolicy;
		}

		public void setDeliverPolicy(DeliverFrom deliverPolicy) {
			this.deliverPolicy = deliverPolicy;
		}

		public Duration getWorkingAckInterval() {
			return this.workingAckInterval;
		}

		public void setWorkingAckInterval(Duration workingAckInterval) {
			this.workingAckInterval = workingAckInterval;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public AbandonedPolicy getOnAbandoned() {
			return this.onAbandoned;
		}

		public void setOnAbandoned(AbandonedPolicy onAbandoned) {
			this.onAbandoned = onAbandoned;
		}

		public Duration getPullExpiry() {
			return this.pullExpiry;
		}

		public void setPullExpiry(Duration pullExpiry) {
			this.pullExpiry = pullExpiry;
		}

		public Duration getRetryDelay() {
			return this.retryDelay;
		}

		public void setRetryDelay(Duration retryDelay) {
			this.retryDelay = retryDelay;
		}

		public String getDeadLetterSubject() {
			return this.deadLetterSubject;
		}

		public void setDeadLetterSubject(String deadLetterSubject) {
			this.deadLetterSubject = deadLetterSubject;
		}

		public DataSize getMaxPayloadSize() {
			return this.maxPayloadSize;
		}

		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			this.maxPayloadSize = maxPayloadSize;
		}

		public List<Class<? extends Throwable>> getNonRetryableExceptions() {
			return this.nonRetryableExceptions;
		}

		public void setNonRetryableExceptions(List<Class<? extends Throwable>> nonRetryableExceptions) {
			this.nonRetryableExceptions = nonRetryableExceptions;
		}

	}

	/** Provisioning settings. */
	public static class Provisioning {

		/** Whether to create, only validate, or ignore declared streams and consumers. */
		private ProvisioningMode mode = ProvisioningMode.CREATE_OR_UPDATE;

		public ProvisioningMode getMode() {
			return this.mode;
		}

		public void setMode(ProvisioningMode mode) {
			this.mode = mode;
		}

	}

	/** Publisher settings. */
	public static class Publisher {

		/** Attempts of one publish before giving up (same message id each time). */
		private int maxAttempts = 3;

		/** Delay before the first retry; doubled on each further retry. */
		private Duration initialBackoff = Duration.ofMillis(200);

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

	}

	/** Dead-letter settings. */
	public static class DeadLetter {

		/** Stream that stores dead letters; provisioned with the dead-letter subjects when set. */
		private String stream = "DEAD_LETTERS";

		/** First token of the default dead-letter subjects, which are PREFIX.STREAM.CONSUMER. */
		private String subjectPrefix = "deadletter";

		/** How long dead letters are kept in the dead-letter stream. */
		private Duration maxAge = Duration.ofDays(30);

		/** Replicas of the dead-letter stream (3 on a cluster). */
		private int replicas = 1;

		public String getStream() {
			return this.stream;
		}

		public void setStream(String stream) {
			this.stream = stream;
		}

		public String getSubjectPrefix() {
			return this.subjectPrefix;
		}

		public void setSubjectPrefix(String subjectPrefix) {
			this.subjectPrefix = subjectPrefix;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

	}

	/** Listener container settings. */
	public static class Listener {

		/**
		 * Whole time stopping the listeners may take, kept below the pod's termination grace
		 * period: handlers get 80% of it to finish, are then interrupted, and at 90% whatever still
		 * runs is released and nak'd for another instance.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(20);

		/** How long to wait for the server to confirm an ack (ack-mode sync). */
		private Duration ackTimeout = Duration.ofSeconds(5);

		/** Whether acks after a durable completion record wait for the server's confirmation. */
		private AckMode ackMode = AckMode.SYNC;

		/** How long to keep retrying a completion record while the store is unreachable. */
		private Duration completionRetryTimeout = Duration.ofMinutes(10);

		/** Whether containers start with the application context. */
		private boolean autoStartup = true;

		/** Exception types (and their subtypes) that dead-letter a message at once instead of a retry. */
		private List<Class<? extends Throwable>> nonRetryableExceptions = new ArrayList<>();

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public Duration getAckTimeout() {
			return this.ackTimeout;
		}

		public void setAckTimeout(Duration ackTimeout) {
			this.ackTimeout = ackTimeout;
		}

		public AckMode getAckMode() {
			return this.ackMode;
		}

		public void setAckMode(AckMode ackMode) {
			this.ackMode = ackMode;
		}

		public Duration getCompletionRetryTimeout() {
			return this.completionRetryTimeout;
		}

		public void setCompletionRetryTimeout(Duration completionRetryTimeout) {
			this.completionRetryTimeout = completionRetryTimeout;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public List<Class<? extends Throwable>> getNonRetryableExceptions() {
			return this.nonRetryableExceptions;
		}

		public void setNonRetryableExceptions(List<Class<? extends Throwable>> nonRetryableExceptions) {
			this.nonRetryableExceptions = nonRetryableExceptions;
		}

	}

	/**
	 * How a delivery is acknowledged once its completion record is durable. Both are safe: a lost
	 * ack only causes a redelivery, which is acknowledged as a duplicate without running.
	 */
	public enum AckMode {

		/** {@code ackSync}: wait for the server to confirm (one round trip per message). */
		SYNC,

		/** {@code ack}: fire and forget; faster, a lost ack shows up as a duplicate redelivery. */
		ASYNC

	}

	/** Where the idempotency records are kept. */
	public enum StoreType {

		/** A NATS JetStream key-value bucket (needs no other infrastructure). */
		NATS_KV,

		/** Redis, through the application's RedisConnectionFactory. */
		REDIS,

		/** Google Cloud Firestore, through the application's Firestore bean. */
		FIRESTORE,

		/** A map in this JVM; for tests and local runs only. */
		MEMORY

	}

	/** Storage of a stream or bucket. */
	public enum StorageKind {

		/** Persisted to disk. */
		FILE,

		/** Kept in memory only. */
		MEMORY

	}

	/** Stream retention policy. */
	public enum Retention {

		/** Keep messages until limits are reached. */
		LIMITS,

		/** Remove a message once acked by its consumer. */
		WORKQUEUE,

		/** Keep messages while consumers are interested. */
		INTEREST

	}

	/** Stream discard policy. */
	public enum Discard {

		/** Discard the oldest messages. */
		OLD,

		/** Refuse new messages. */
		NEW

	}

	/** Where a new consumer starts. */
	public enum DeliverFrom {

		/** From the first message in the stream. */
		ALL,

		/** From messages published after the consumer was created. */
		NEW,

		/** From the last message in the stream. */
		LAST,

		/** From the last message of each subject. */
		LAST_PER_SUBJECT

	}

	/** What to do with a claim whose previous holder died before completing. */
	public enum AbandonedPolicy {

		/** Run the handler again; it sees the previous attempt in its context. */
		RETRY,

		/** Do not run it again; park the message for a person. */
		DEAD_LETTER

	}

	/** Provisioning mode. */
	public enum ProvisioningMode {

		/** Create what is missing and update what the server allows. */
		CREATE_OR_UPDATE,

		/** Fail start-up when something is missing or differs. */
		VALIDATE,

		/** Do nothing; the streams and consumers are managed elsewhere. */
		NONE

	}

}
