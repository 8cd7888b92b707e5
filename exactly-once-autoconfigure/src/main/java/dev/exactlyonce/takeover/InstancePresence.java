package dev.exactlyonce.takeover;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.nats.LockedKvBucket;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Keeps this incarnation present while the application runs: subscribes to its subject, and keeps its
 * record in the instances bucket, rewritten soon after its running tasks change (at most every
 * {@link #MIN_INTERVAL}) and at least every {@link #HEARTBEAT}. On start, after its first record is
 * stored, it takes over what gone incarnations of its instance id left ({@link RestartTakeover}), in
 * the background. A routine stop deletes the record (a stopping listener releases and naks what it
 * ran). Starts before the listeners and stops after them.
 */
public final class InstancePresence implements SmartLifecycle {

	/** How often a live incarnation rewrites its record at the latest. */
	static final Duration HEARTBEAT = Duration.ofMillis(500);

	/** How soon after a change of its tasks a record is rewritten at the earliest after the last write. */
	static final Duration MIN_INTERVAL = Duration.ofMillis(50);

	/**
	 * How long the record of an incarnation nobody took over is kept (its tasks were redelivered long
	 * before): a takeover's silence must be shorter, or the record is gone before it is seen silent.
	 */
	public static final Duration RECORD_TTL = Duration.ofHours(1);

	private static final Duration TICK = Duration.ofMillis(10);

	private static final Log logger = LogFactory.getLog(InstancePresence.class);

	private final InstanceIdentity identity;

	private final InstanceRecords records;

	private final RunningTasks tasks;

	private final Connection connection;

	private final RestartTakeover takeover;

	private final RateLimitedLog writeFailures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private volatile ScheduledExecutorService scheduler;

	private volatile Dispatcher responder;

	private volatile Thread takeoverThread;

	private long writtenChanges = -1;

	private long writtenAt;

	/**
	 * Opens the instances bucket (creating it when missing and allowed to) for a new incarnation.
	 * @param connection the listeners' NATS connection
	 * @param instanceId the instance id ({@code exactlyonce.instance-id})
	 * @param bucket the bucket's name
	 * @param requestTimeout how long one NATS request may take
	 * @param silence how long a gone incarnation's record must have gone unwritten (see
	 * {@link #defaultSilence})
	 * @param create whether a missing bucket is created
	 * @param store the idempotency store, whose claims a takeover ends
	 * @param tasks the tasks this incarnation runs
	 * @return the presence, to start
	 * @throws dev.exactlyonce.config.ExactlyOnceConfigurationException when the bucket is missing and
	 * may not be created
	 */
	public static InstancePresence open(Connection connection, String instanceId, String bucket, Duration requestTimeout,
			Duration silence, boolean create, IdempotencyStore store, RunningTasks tasks) {
		InstanceRecords records = new InstanceRecords(LockedKvBucket.open(connection, new LockedKvBucket.Spec(bucket,
				"exactlyonce.takeover.bucket", "exactly-once instances: the tasks each live process runs", RECORD_TTL,
				requestTimeout, create, ", or set exactlyonce.takeover.enabled=false (a restarted instance then "
						+ "resumes its predecessor's tasks at their redelivery, after the ack wait).")));
		InstanceIdentity identity = InstanceIdentity.start(instanceId);
		return new InstancePresence(identity, records, tasks, connection, new RestartTakeover(identity, records, store,
				connection, new PendingMessages(connection, requestTimeout), requestTimeout, silence));
	}

	/**
	 * The silence of a takeover when {@code exactlyonce.takeover.silence} is unset.
	 * @param reconnectWait the NATS client's wait between reconnect attempts
	 * @param requestTimeout how long one NATS request may take
	 * @return the silence, see {@link RestartTakeover#silence}
	 */
	public static Duration defaultSilence(Duration reconnectWait, Duration requestTimeout) {
		return RestartTakeover.silence(reconnectWait, requestTimeout);
	}

	/**
	 * Creates the presence.
	 * @param identity this incarnation
	 * @param records the instances bucket
	 * @param tasks the tasks it runs
	 * @param connection the NATS connection
	 * @param takeover what takes over gone incarnations' tasks
	 */
	InstancePresence(InstanceIdentity identity, InstanceRecords records, RunningTasks tasks, Connection connection,
			RestartTakeover takeover) {
		this.identity = identity;
		this.records = records;
		this.tasks = tasks;
		this.connection = connection;
		this.takeover = takeover;
	}

	@Override
	public void start() {
		// never answers: a request finding this subscription times out, one finding none is refused at once
		Dispatcher dispatcher = this.connection.createDispatcher((message) -> {
		});
		dispatcher.subscribe(InstanceIdentity.subjectOf(this.identity.key()));
		this.responder = dispatcher;
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "exactlyonce-instance");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler = executor;
		InstanceRecords.Stored own = firstWrite();
		if (own != null) {
			Thread thread = new Thread(() -> takeOver(own), "exactlyonce-takeover");
			thread.setDaemon(true);
			this.takeoverThread = thread;
			thread.start();
		}
		executor.scheduleWithFixedDelay(this::writeWhenDue, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** This incarnation's first record, as stored; {@code null} when NATS did not take it. */
	private InstanceRecords.Stored firstWrite() {
		try {
			this.connection.flush(HEARTBEAT);
			write();
			return this.records.read(this.identity.key()).orElseThrow(() -> new IOException("not read back"));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.warn("Instance '" + this.identity.instanceId() + "' did not store its record in the instances bucket "
					+ "(tasks its earlier incarnations left resume at their redelivery, after the ack wait): " + ex);
		}
		return null;
	}

	private void takeOver(InstanceRecords.Stored own) {
		try {
			int taken = this.takeover.run(own);
			if (taken > 0) {
				logger.info("Instance '" + this.identity.instanceId() + "' took over " + taken
						+ " task(s) of its earlier incarnation(s); their messages are redelivered now");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			if (this.scheduler == null) {
				return; // stopped meanwhile
			}
			logger.warn("Instance '" + this.identity.instanceId() + "' did not look for tasks its earlier incarnations "
					+ "left (they resume at their redelivery, after the ack wait): " + ex);
		}
	}

	private void writeWhenDue() {
		try {
			long sinceWrite = System.nanoTime() - this.writtenAt;
			boolean changed = this.tasks.changes() != this.writtenChanges;
			if ((changed && sinceWrite >= MIN_INTERVAL.toNanos()) || sinceWrite >= HEARTBEAT.toNanos()) {
				write();
			}
		}
		catch (Exception ex) {
			this.writeFailures.warn(() -> "Record of instance '" + this.identity.instanceId()
					+ "' not written to the instances bucket (a restart takes over only what it last listed): " + ex);
		}
	}

	private void write() throws IOException, JetStreamApiException {
		long changes = this.tasks.changes();
		this.records.write(this.identity.key(),
				new InstanceRecord(this.identity.instanceId(), this.identity.incarnation(), this.tasks.snapshot()));
		this.writtenChanges = changes;
		this.writtenAt = System.nanoTime();
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.scheduler;
		if (executor == null) {
			return;
		}
		this.scheduler = null;
		Thread thread = this.takeoverThread;
		if (thread != null) {
			thread.interrupt();
		}
		executor.shutdownNow();
		try {
			executor.awaitTermination(HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try {
			this.records.delete(this.identity.key());
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			logger.debug("Record of instance '" + this.identity.instanceId() + "' not deleted (it expires): " + ex);
		}
		try {
			this.connection.closeDispatcher(this.responder);
		}
		catch (RuntimeException ex) {
			// the connection is closed already
		}
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

	/** Before the listeners (which start at the default phase) and after them on stop. */
	@Override
	public int getPhase() {
		return DEFAULT_PHASE - 1;
	}

}
