package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import dev.exactlyonce.listener.AckMode;
import dev.exactlyonce.listener.ListenerSettings;
import dev.exactlyonce.listener.ListenerThreads;
import dev.exactlyonce.provision.ConsumerDeclaration;
import dev.exactlyonce.provision.JetStreamDeclarations;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.provision.StreamDeclaration;

/**
 * Configuration properties for exactly-once processing over NATS JetStream, bound from
 * {@code exactlyonce.*} and mapped onto the pipeline's own model ({@link #toJetStreamDeclarations()},
 * {@link #toListenerSettings(ListenerThreads)}, {@link NatsProperties#toConnectionSettings(NatsConnectionDetails)},
 * {@link StoreProperties#toBucketSpec}).
 */
@ConfigurationProperties("exactlyonce")
public class ExactlyOnceProperties {

	/** NATS connection settings. */
	@NestedConfigurationProperty
	private final NatsProperties nats = new NatsProperties();

	/** Idempotency store settings. */
	@NestedConfigurationProperty
	private final StoreProperties store = new StoreProperties();

	/** Streams to provision, keyed by stream name. */
	private final Map<String, StreamProperties> streams = new LinkedHashMap<>();

	/** Durable pull consumers to provision and listen on, keyed by durable name. */
	private final Map<String, ConsumerProperties> consumers = new LinkedHashMap<>();

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

	/** Durable waits: sleeps and signals that hold no worker while they wait. */
	private final WaitsProperties waits = new WaitsProperties();

	/** Concurrency and rate limits by name, for listeners and steps (docs/limits.md). */
	private final Map<String, LimitProperties> limits = new LinkedHashMap<>();

	/** Operator tools: task inspection, replay, resubmit and discard. */
	private final Operations operations = new Operations();

	/** The operations dashboard page. */
	private final Dashboard dashboard = new Dashboard();

	/** Name of this application instance in claims; host name and process id when unset. */
	private String instanceId;

	/** A restarted instance taking over the tasks its crashed predecessor left. */
	private final Takeover takeover = new Takeover();

	public NatsProperties getNats() {
		return this.nats;
	}

	public StoreProperties getStore() {
		return this.store;
	}

	public Map<String, StreamProperties> getStreams() {
		return this.streams;
	}

	public Map<String, ConsumerProperties> getConsumers() {
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

	public WaitsProperties getWaits() {
		return this.waits;
	}

	public Map<String, LimitProperties> getLimits() {
		return this.limits;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Steps getSteps() {
		return this.steps;
	}

	public Operations getOperations() {
		return this.operations;
	}

	public Dashboard getDashboard() {
		return this.dashboard;
	}

	public Takeover getTakeover() {
		return this.takeover;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	/**
	 * Everything declared for the JetStream server: the dead-letter stream, the streams and the
	 * consumers, in the order they are declared.
	 * @return the declarations
	 */
	public JetStreamDeclarations toJetStreamDeclarations() {
		List<StreamDeclaration> streams = new ArrayList<>();
		this.streams.forEach((name, stream) -> streams.add(stream.toDeclaration(name)));
		List<ConsumerDeclaration> consumers = new ArrayList<>();
		this.consumers.forEach((name, consumer) -> consumers.add(consumer.toDeclaration(name)));
		return new JetStreamDeclarations(this.deadLetter.toStreamDeclaration(this.consumers.values()), streams,
				consumers);
	}

	/**
	 * The settings every listener shares.
	 * @param threads what listeners run on ({@code spring.threads.virtual.enabled} decides)
	 * @return the settings
	 */
	public ListenerSettings toListenerSettings(ListenerThreads threads) {
		return new ListenerSettings(this.listener.getShutdownTimeout(), this.listener.getAckMode(),
				this.listener.getAckTimeout(), this.listener.getCompletionRetryTimeout(), this.listener.isAutoStartup(),
				this.listener.getNonRetryableExceptions(), this.nats.getRequestTimeout(),
				this.store.getResultSummaryMaxLength(), this.listener.isPipelined(), threads);
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

		/**
		 * The dead-letter stream: the default subjects ({@code PREFIX.>}) and every consumer's own
		 * dead-letter subject outside them (the server refuses overlapping subjects), kept for
		 * {@code max-age}, with a two-minute duplicate window.
		 * @param consumers the declared consumers
		 * @return the declaration, or {@code null} when no stream is named
		 */
		public StreamDeclaration toStreamDeclaration(Collection<ConsumerProperties> consumers) {
			if (this.stream == null || this.stream.isBlank()) {
				return null;
			}
			Set<String> subjects = new LinkedHashSet<>();
			subjects.add(this.subjectPrefix + ".>");
			consumers.forEach((consumer) -> {
				String own = consumer.getDeadLetterSubject();
				if (own != null && !own.startsWith(this.subjectPrefix + ".")) {
					subjects.add(own);
				}
			});
			StreamProperties deadLetters = new StreamProperties();
			deadLetters.setSubjects(new ArrayList<>(subjects));
			deadLetters.setMaxAge(this.maxAge);
			deadLetters.setReplicas(this.replicas);
			deadLetters.setDuplicateWindow(Duration.ofMinutes(2));
			return deadLetters.toDeclaration(this.stream);
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

		/**
		 * How long a completion record is retried while the store is unreachable before an ERROR
		 * says so; the retries go on (message and claim held) until it is written or the listener stops.
		 */
		private Duration completionRetryTimeout = Duration.ofMinutes(10);

		/** Whether containers start with the application context. */
		private boolean autoStartup = true;

		/**
		 * Whether a completion record the store could not take is also parked in a NATS KV bucket, so
		 * that the attempt that takes the key over after this process stopped or died records it
		 * instead of running the handler again.
		 */
		private boolean completionParking = true;

		/**
		 * NATS KV bucket of parked completions (created at start-up when missing and provisioning
		 * mode is create-or-update; entries kept for exactlyonce.store.completed-ttl).
		 */
		private String parkingBucket = "EXACTLYONCE_PARKED_COMPLETIONS";

		/**
		 * Whether completion records and acks are written off the handler threads: each consumer
		 * gets twice concurrency completion threads, and a handler thread takes its next message
		 * while the last one's record is written, so up to twice concurrency messages are
		 * unacknowledged at once. Every guarantee holds; the ack still follows the durable record.
		 */
		private boolean pipelined;

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

		public boolean isCompletionParking() {
			return this.completionParking;
		}

		public void setCompletionParking(boolean completionParking) {
			this.completionParking = completionParking;
		}

		public String getParkingBucket() {
			return this.parkingBucket;
		}

		public void setParkingBucket(String parkingBucket) {
			this.parkingBucket = parkingBucket;
		}

		public boolean isPipelined() {
			return this.pipelined;
		}

		public void setPipelined(boolean pipelined) {
			this.pipelined = pipelined;
		}

		public List<Class<? extends Throwable>> getNonRetryableExceptions() {
			return this.nonRetryableExceptions;
		}

		public void setNonRetryableExceptions(List<Class<? extends Throwable>> nonRetryableExceptions) {
			this.nonRetryableExceptions = nonRetryableExceptions;
		}

	}

	/** Durable step settings. */
	public static class Steps {

		/**
		 * Largest result a step may journal, as JSON (every store keeps 1 MiB); store larger outputs
		 * elsewhere and journal a reference.
		 */
		private DataSize maxResultSize = DataSize.ofMegabytes(1);

		/**
		 * How long a step's DONE entry may wait to be journaled in one store write with the entry
		 * after it (the next step's or wait's start), else alone; it is always journaled before the
		 * handler's completion, failure or wait is. Saves one write per step; for this long a crash
		 * leaves a finished step looking unfinished, as a crash just before its DONE write does
		 * (probed, or handled by on-abandoned). 0 journals every DONE entry at once.
		 */
		private Duration doneDelay = Duration.ofMillis(10);

		public DataSize getMaxResultSize() {
			return this.maxResultSize;
		}

		public void setMaxResultSize(DataSize maxResultSize) {
			this.maxResultSize = maxResultSize;
		}

		public Duration getDoneDelay() {
			return this.doneDelay;
		}

		public void setDoneDelay(Duration doneDelay) {
			this.doneDelay = doneDelay;
		}

	}

	/** Operator tools: task inspection, replay, resubmit and discard. */
	public static class Operations {

		/** Whether dead-letter listings include payloads; off because payloads can hold personal data. */
		private boolean showPayloads;

		/** NATS KV bucket keeping the fleet-wide monthly counts (created when missing). */
		private String tallyBucket = "EXACTLYONCE_TALLIES";

		/** How often each instance adds its counts to the tally bucket; a crash loses at most this much. */
		private Duration tallyInterval = Duration.ofSeconds(10);

		public boolean isShowPayloads() {
			return this.showPayloads;
		}

		public void setShowPayloads(boolean showPayloads) {
			this.showPayloads = showPayloads;
		}

		public String getTallyBucket() {
			return this.tallyBucket;
		}

		public void setTallyBucket(String tallyBucket) {
			this.tallyBucket = tallyBucket;
		}

		public Duration getTallyInterval() {
			return this.tallyInterval;
		}

		public void setTallyInterval(Duration tallyInterval) {
			this.tallyInterval = tallyInterval;
		}

	}

	/** The operations dashboard page. */
	public static class Dashboard {

		/** Whether the application serves the dashboard page (servlet web applications only). */
		private boolean enabled;

		/** Path of the dashboard page; it reads the exactlyonce and exactlyonceops actuator endpoints. */
		private String path = "/exactlyonce";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * A restarted instance (same {@code instance-id}) taking over the tasks its crashed predecessor left.
	 */
	public static class Takeover {

		/**
		 * Whether each process lists its running tasks in the instances bucket and, as it starts,
		 * resumes at once the tasks an earlier process of the same instance id left when it died. Off by
		 * default: it needs {@code instance-id} set explicitly, to a name that a restarted process keeps
		 * and no other live process has, the bucket, and the worker's permissions for it.
		 */
		private boolean enabled;

		/** NATS KV bucket of the live processes and the tasks they run. */
		private String bucket = "EXACTLYONCE_INSTANCES";

		/**
		 * How long an earlier process's record must have gone unwritten before a starting process may
		 * take its tasks over (it must also be refused with "no responders" and its record read again
		 * unchanged, whatever this is); 0 or more and below 1 h, the time a dead process's record is
		 * kept. Unset: twice {@code nats.reconnect-wait} + 500 ms +
		 * {@code nats.request-timeout} (15 s with the defaults), so that a live process whose NATS
		 * connection drops and comes back is never taken for dead. Shorter (down to 0) is safe only where
		 * the platform guarantees that two processes never run with one instance id at the same time (a
		 * StatefulSet pod, a systemd unit, one VM), as DBOS assumes of its executor id; otherwise a live
		 * process briefly disconnected from NATS is taken over and a step it is in can run twice at once.
		 */
		private Duration silence;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getBucket() {
			return this.bucket;
		}

		public void setBucket(String bucket) {
			this.bucket = bucket;
		}

		public Duration getSilence() {
			return this.silence;
		}

		public void setSilence(Duration silence) {
			this.silence = silence;
		}

	}

}
