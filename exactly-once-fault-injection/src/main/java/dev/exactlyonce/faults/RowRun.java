package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;

import dev.exactlyonce.faults.FaultRow.Fault;

/**
 * Runs one row of the matrix against fresh processes: its own NATS (single server or cluster),
 * consumer JVMs and publisher JVM. It keeps injecting the row's fault while tasks are in flight,
 * restarts whatever died, then waits until the stream is drained and every consumer stopped, and
 * counts executions against the published task ids.
 */
final class RowRun {

	static final String CONSUMER = "marketing-task-worker";

	/** The sample's second consumer, the DevOps agent, fed by the marketing agent's follow-up publish. */
	static final String DEPLOY_CONSUMER = "devops-task-worker";

	/** The sample's CEO agent, whose campaigns start child tasks (the rows of {@link FaultRow#campaigns()}). */
	static final String CAMPAIGN_CONSUMER = "ceo-campaign-worker";

	/**
	 * The waits' recheck interval in the child tasks' rows: a parent whose child's JVM died between
	 * storing its result and resuming it is resumed by the wait timer's next look, at most this later.
	 */
	static final Duration CHILD_RECHECK_INTERVAL = Duration.ofSeconds(5);

	/**
	 * The publisher's pause between campaigns: about what the CEO agent's consumers start in that time,
	 * so a resumed parent does not queue behind a backlog of new campaigns (the time a parent takes to
	 * go on after its children is measured).
	 */
	private static final long CAMPAIGN_PAUSE_MILLIS = 250;

	/** Exit status of a chaos halt ({@code sample.chaos.exit-status}). */
	static final int HALT_STATUS = 99;

	/** How far the clock of one consumer JVM runs ahead in a {@link Fault#CLOCK_SKEW} row: far more than the lease. */
	static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

	/** The stream's duplicate window in a {@link Fault#CLOCK_SKEW} row, so that a task's second copy is stored. */
	private static final Duration SHORT_DUPLICATE_WINDOW = Duration.ofMillis(100);

	/**
	 * The lease in the rows that take the NATS KV store away: above a nats-server restart and a
	 * JetStream leader election after a node kill.
	 */
	private static final Duration SERVER_OUTAGE_LEASE = Duration.ofSeconds(10);

	/** The gap between a task's two copies in a {@link Fault#CLOCK_SKEW} row: past the duplicate window. */
	private static final Duration COPY_GAP = Duration.ofMillis(300);

	private static final long STATE_POLL_MILLIS = 200;

	/**
	 * The durable waits' {@code recheck-interval} in their rows (10 min by default): the longest a
	 * task waits for the timer's next look when the instance that took its signal died before
	 * publishing its copy.
	 */
	static final Duration WAIT_RECHECK = Duration.ofSeconds(5);

	/**
	 * What a waits' row allows beyond {@link #WAIT_RECHECK} between a signal taken and its task no
	 * longer listed waiting: the timer's look and the driver's own look on a loaded machine.
	 */
	private static final Duration WAIT_RECHECK_SLACK = Duration.ofSeconds(5);

	/** How long a delivery of a {@link Fault#ZOMBIE_AT_POINT} row waits at the point to be frozen. */
	private static final Duration STALL = Duration.ofSeconds(1);

	private final FaultRow row;

	private final SuiteProfile profile;

	private final SampleAppLauncher launcher;

	private final PostgresDatabase database;

	private final Path directory;

	private final Log log;

	private final Random random;

	private final String prefix;

	private final List<String> unexpected = new ArrayList<>();

	private final List<String> notes = new ArrayList<>();

	private final List<ConsumerSlot> slots = new ArrayList<>();

	private final Map<ConsumerSlot, Long> resumeAt = new HashMap<>();

	private final StallWatch stalls = new StallWatch();

	private NatsEnvironment nats;

	private Connection connection;

	private PublisherProcess publisher;

	private Map<String, String> common;

	private int chaosHalts;

	private int injections;

	private int lastProgress;

	private long nextInjectionAt;

	private long lastStatePoll;

	private boolean workRemaining = true;

	private boolean drained;

	private Evidence.DeadLetters deadLetters;

	private int leftInStream;

	private ClusterNode downNode;

	private long nodeDownSince;

	private int progressAtKill;

	private int tasksWhileNodeDown;

	private StoreServer store;

	private NetworkNamespace namespace;

	private Outages outages;

	private StoreDownSigterms sigterms;

	private SignallingDriver signals;

	private WaitKills waitKills;

	private RestartTrace restarts;

	private LimitRows limits;

	RowRun(FaultRow row, SuiteProfile profile, SampleAppLauncher launcher, PostgresDatabase database, Path directory,
			Log log, long seed) {
		this.row = row;
		this.profile = profile;
		this.launcher = launcher;
		this.database = database;
		this.directory = directory;
		this.log = log;
		this.random = new Random(seed);
		this.prefix = "r" + row.ordinal() + "t";
	}

	RowResult run() throws IOException, InterruptedException {
		long started = System.nanoTime();
		Directories.recreate(this.directory);
		String skipped = this.row.partitions() ? partition() : null;
		if (skipped != null) {
			return RowResult.skipped(this.row, skipped);
		}
		try {
			this.store = StoreServer.start(storeType(),
					(this.namespace != null) ? List.of(this.namespace.storeAddress()) : List.of(),
					this.profile.requestTimeout());
			this.outages = new Outages(this.row.fault(), this.store, this.namespace, this.profile.zombiePause(),
					this.profile.injectionsPerRow(), this.random, this.log);
			this.sigterms = new StoreDownSigterms(this.store, this.profile.injectionsPerRow(), this.log);
			this.signals = this.row.waits() ? new SignallingDriver(CONSUMER, this.prefix) : null;
			this.waitKills = new WaitKills(this.profile.injectionsPerRow());
			this.limits = this.row.limits() ? new LimitRows(this.row, this.directory, this.profile.injectionsPerRow(),
					this.random, this.log) : null;
			this.nats = (this.row.fault() == Fault.CLUSTER_NODE_KILL) ? NatsEnvironment.cluster()
					: (this.namespace != null) ? NatsEnvironment.singleOnAllAddresses() : NatsEnvironment.single();
			this.connection = this.nats.connect();
			this.deadLetters = new Evidence.DeadLetters(this.connection);
			this.restarts = new RestartTrace(this.connection, TaskPublisher.STREAM, CONSUMER, this.log);
			this.nats.awaitJetStream(this.connection, Duration.ofSeconds(60));
			this.common = commonProperties();
			for (int i = 1; i <= this.profile.consumers(); i++) {
				ConsumerSlot slot = new ConsumerSlot("c" + i, this.directory.resolve("c" + i), launcherOf(i),
						(i == 1) ? clockEnvironment() : Map.of());
				this.slots.add(slot);
				slot.start(this.common, incarnationProperties(slot));
			}
			Waits.until("the consumers to provision stream TASKS and consumer " + CONSUMER, Duration.ofSeconds(90),
					() -> superviseAnd(this::consumerExists));
			this.publisher = new PublisherProcess(this.directory, this.nats.urls(), this.prefix,
					this.profile.tasksPerRow(), this.row.campaigns() ? CAMPAIGN_PAUSE_MILLIS
							: (this.limits != null) ? this.limits.publishPauseMillis() : 20,
					copiesPerTask(), COPY_GAP, (this.limits != null) ? this.limits.lanes() : 0);
			if (this.row.campaigns()) {
				this.publisher.campaigns();
			}
			this.publisher.start(0);
			Duration timeout = (this.limits != null)
					? this.limits.rowTimeout(this.profile.rowTimeout(), this.profile.tasksPerRow())
					: this.profile.rowTimeout();
			long deadline = System.nanoTime() + timeout.toNanos();
			while (!this.drained) {
				if (System.nanoTime() > deadline) {
					this.unexpected.add("not drained within " + timeout + ": " + describeState());
					break;
				}
				supervise();
				this.publisher.poll();
				killPublisherWhenDue();
				pollState();
				signal();
				inject();
				Waits.pause(50);
			}
			resumeAll();
			this.slots.forEach(ConsumerSlot::stopGracefully);
			return verdict(Duration.ofNanos(System.nanoTime() - started));
		}
		finally {
			this.slots.forEach(ConsumerSlot::kill);
			if (this.publisher != null) {
				this.publisher.close();
			}
			if (this.connection != null) {
				this.connection.close();
			}
			if (this.nats != null) {
				this.nats.close();
			}
			closeStoreAndNamespace();
		}
	}

	/** The row's own store, else the suite's. */
	private String storeType() {
		return (this.row.store() != null) ? this.row.store() : this.profile.storeType();
	}

	/**
	 * Makes the network namespace of a partition row's last consumer.
	 * @return why the row cannot run here (printed, never silent), or {@code null}
	 */
	private String partition() {
		String unavailable = NetworkNamespace.unavailableReason();
		if (unavailable != null) {
			return unavailable;
		}
		if (storeType().equals("firestore")) {
			return "the Firestore emulator listens on loopback only, out of a network namespace's reach: run the "
					+ "partition rows with --store=nats-kv or redis";
		}
		try {
			this.namespace = NetworkNamespace.create();
			this.log.line("consumer c" + this.profile.consumers() + " runs in network namespace " + this.namespace);
			return null;
		}
		catch (IllegalStateException ex) {
			return "no network namespace could be made: " + ex.getMessage();
		}
	}

	/** The launcher of slot {@code index}: the last slot of a partition row runs in the namespace. */
	private SampleAppLauncher launcherOf(int index) {
		return (this.namespace != null && index == this.profile.consumers())
				? this.launcher.through(this.namespace.commandPrefix()) : this.launcher;
	}

	/**
	 * A new incarnation's own properties: its chaos settings, and for the consumer in a network
	 * namespace the addresses of NATS and the store on the root side of its veth pair.
	 */
	private Map<String, String> incarnationProperties(ConsumerSlot slot) {
		Map<String, String> properties = new LinkedHashMap<>(chaosProperties(slot));
		if (this.namespace != null && slot == this.slots.get(this.slots.size() - 1)) {
			properties.put("exactlyonce.nats.servers",
					"nats://" + this.namespace.natsAddress() + ":" + this.nats.port());
			properties.putAll(this.store.consumerProperties(this.namespace.storeAddress()));
		}
		if (this.signals != null) {
			properties.put("server.port", Integer.toString(this.signals.port(slot.name())));
		}
		return properties;
	}

	/** In a durable waits' row, the driver's look at the waiting tasks through a live consumer. */
	private void signal() {
		if (this.signals != null) {
			this.signals.poll(this.slots.stream().filter((slot) -> slot.alive() && slot.ready())
				.map(ConsumerSlot::name).toList());
		}
	}

	private void closeStoreAndNamespace() {
		if (this.outages != null) {
			this.outages.end();
		}
		if (this.store != null) {
			this.store.close();
		}
		if (this.namespace != null) {
			this.namespace.close();
		}
	}

	private Map<String, String> commonProperties() {
		String consumer = "exactlyonce.consumers." + CONSUMER + ".";
		Map<String, String> properties = new LinkedHashMap<>();
		// the durable waits' rows signal through the operations endpoint: each consumer serves it on its own port
		properties.put("spring.main.web-application-type", this.row.waits() ? "servlet" : "none");
		if (this.row.waits()) {
			properties.put("server.address", "127.0.0.1");
			properties.put("management.endpoint.exactlyonceops.access", "unrestricted");
			properties.put("exactlyonce.waits.recheck-interval", WAIT_RECHECK.toMillis() + "ms");
		}
		properties.put("exactlyonce.nats.servers", String.join(",", this.nats.urls()));
		properties.put("exactlyonce.nats.reconnect-wait", "500ms");
		properties.put("exactlyonce.nats.request-timeout", this.profile.requestTimeout().toMillis() + "ms");
		// The KV store's requests time out after the connection timeout, not the request timeout.
		properties.put("exactlyonce.nats.connection-timeout", this.profile.requestTimeout().toMillis() + "ms");
		properties.putAll(this.store.consumerProperties("127.0.0.1"));
		properties.put("exactlyonce.store.lease", lease().toMillis() + "ms");
		properties.put("exactlyonce.store.nats-kv.replicas", Integer.toString(this.nats.replicas()));
		properties.put("exactlyonce.streams.TASKS.replicas", Integer.toString(this.nats.replicas()));
		// The DevOps agent's consumer gets the same timings: a deploy held by a halted JVM is redelivered
		// after the row's ack wait, not the sample's minute.
		for (String prefix : consumerPrefixes()) {
			properties.put(prefix + "ack-wait", this.profile.ackWait().toMillis() + "ms");
			properties.put(prefix + "backoff", "");
			properties.put(prefix + "max-deliver",
					Integer.toString((this.row.maxDeliver() > 0) ? this.row.maxDeliver() : this.profile.maxDeliver()));
			properties.put(prefix + "max-ack-pending", Integer.toString(this.profile.consumers() + 2));
			properties.put(prefix + "working-ack-interval", this.profile.workingAckInterval().toMillis() + "ms");
			properties.put(prefix + "retry-delay", "1s");
			properties.put(prefix + "pull-expiry", "1s");
		}
		properties.put(consumer + "on-abandoned", this.row.onAbandoned());
		properties.put("exactlyonce.listener.shutdown-timeout", this.row.shutdownTimeout().toMillis() + "ms");
		properties.put("exactlyonce.listener.pipelined", Boolean.toString(this.profile.pipelined()));
		properties.put("sample.work-duration", workDuration().toMillis() + "ms");
		if (this.row.fault() == Fault.CLOCK_SKEW) {
			properties.put("exactlyonce.streams.TASKS.duplicate-window", SHORT_DUPLICATE_WINDOW.toMillis() + "ms");
		}
		properties.put("sample.repository", repository().toString());
		properties.put("sample.commit-probe", Boolean.toString(this.row.commitProbe()));
		// the rows measure draft, commit and deploy: no person approves their drafts, but in the waits' rows
		properties.put("sample.approval-required", Boolean.toString(this.row.waits()));
		if (this.row.campaigns()) {
			properties.put("exactlyonce.waits.recheck-interval", CHILD_RECHECK_INTERVAL.toMillis() + "ms");
			properties.put("sample.delivery-log", "true");
		}
		if (this.database != null) {
			properties.putAll(this.database.consumerProperties());
		}
		if (this.limits != null) {
			properties.putAll(this.limits.consumerProperties(consumer, this.profile.consumers()));
		}
		return properties;
	}

	/** The property prefixes of the consumers the row's timings apply to (the CEO agent's in the campaigns' rows). */
	private List<String> consumerPrefixes() {
		List<String> consumers = new ArrayList<>(List.of(CONSUMER, DEPLOY_CONSUMER));
		if (this.row.campaigns()) {
			consumers.add(CAMPAIGN_CONSUMER);
		}
		return consumers.stream().map((name) -> "exactlyonce.consumers." + name + ".").toList();
	}

	/**
	 * The profile's lease, except where the row takes the NATS KV store away: a node kill leaves the
	 * bucket without a leader for a few seconds ({@link Fault#CLUSTER_NODE_KILL}), a kill -9 and
	 * restart of the only server takes 2 s and more on a loaded machine ({@link Fault#NATS_RESTART}).
	 * With a lease shorter than that outage a task whose handler ran but whose record could not be
	 * written is taken over by another instance, a zombie (7 extra model calls in 100 node kills on
	 * nats-server 2.15.1, finding 17; one deploy run twice in 100 restarts, finding 19) - the window
	 * the zombie rows measure, not what these rows are about. Production leases (20 s by default)
	 * are far longer than a restart or an election.
	 */
	private Duration lease() {
		if (this.row.lease() != null) {
			return this.row.lease();
		}
		if (this.row.limits()) {
			return LimitRows.LEASE;
		}
		return (this.row.fault() == Fault.CLUSTER_NODE_KILL || this.row.fault() == Fault.NATS_RESTART)
				? SERVER_OUTAGE_LEASE : this.profile.lease();
	}

	/**
	 * The marketing agent's work: long enough that a zombie pause or a partition lands mid-handler, or
	 * that a lease is renewed.
	 */
	private Duration workDuration() {
		if (this.row.partitions()) {
			return this.profile.zombieWorkDuration();
		}
		return switch (this.row.fault()) {
			case ZOMBIE -> this.profile.zombieWorkDuration();
			case CLOCK_SKEW -> this.profile.lease().multipliedBy(3).dividedBy(4);
			case LIMIT_KILL -> LimitRows.HOLDER_WORK;
			default -> this.profile.workDuration();
		};
	}

	/** Each task is published twice in a {@link Fault#CLOCK_SKEW} row, once otherwise. */
	private int copiesPerTask() {
		return (this.row.fault() == Fault.CLOCK_SKEW) ? 2 : 1;
	}

	/**
	 * The environment of the first consumer slot: in a {@link Fault#CLOCK_SKEW} row, libfaketime puts
	 * its wall clock {@link #CLOCK_SKEW} ahead. Its monotonic clock moves by the same constant, which
	 * leaves every interval it measures true; {@code FAKETIME_DONT_FAKE_MONOTONIC=1} is not set because
	 * it makes timed waits overshoot ({@code Thread.sleep(200)} took 0.9-1.6 s with it, measured here).
	 */
	private Map<String, String> clockEnvironment() {
		if (this.row.fault() != Fault.CLOCK_SKEW) {
			return Map.of();
		}
		return Map.of("LD_PRELOAD", Binaries.libfaketime(), "FAKETIME", "+" + CLOCK_SKEW.toSeconds() + "s");
	}

	/** The git repository every consumer of the row commits its posts to, so the commit probe sees them all. */
	private Path repository() {
		return this.directory.resolve("repository");
	}

	/**
	 * The chaos settings of a new incarnation: only while the halts so far plus the incarnations
	 * already armed stay below the row's injections, so the row does not overshoot by much.
	 */
	private Map<String, String> chaosProperties(ConsumerSlot slot) {
		if (this.row.fault() == Fault.ZOMBIE_AT_POINT || this.row.fault() == Fault.STORE_DOWN_SIGTERM) {
			return Map.of("sample.chaos.halt-at", this.row.chaosPoint(), "sample.chaos.stall",
					stall().toMillis() + "ms", "sample.chaos.probability",
					Double.toString(this.profile.chaosProbability()), "sample.chaos.seed",
					Long.toString(this.random.nextLong()));
		}
		long armed = this.slots.stream().filter((other) -> other != slot && other.alive() && other.armed()).count();
		if (this.row.fault() != Fault.CHAOS || this.chaosHalts + armed >= this.profile.injectionsPerRow()) {
			slot.armed(false);
			return Map.of();
		}
		slot.armed(true);
		Map<String, String> chaos = new LinkedHashMap<>(Map.of("sample.chaos.halt-at", this.row.chaosPoint(),
				"sample.chaos.probability", Double.toString(this.profile.chaosProbability()), "sample.chaos.seed",
				Long.toString(this.random.nextLong()), "sample.chaos.exit-status", Integer.toString(HALT_STATUS)));
		if (this.row.chaosStep() != null) {
			chaos.put("sample.chaos.step", this.row.chaosStep());
		}
		if ("step-done".equals(this.row.chaosPoint())) {
			// the halt stands for a crash once the step's DONE is journaled; by default it is journaled with the
			// next step's STARTED, so a halt right after the step would fall in the window
			// exactlyonce.steps.done-delay documents (checked by DurableStepsIntegrationTests), not after the DONE
			chaos.put("exactlyonce.steps.done-delay", "0s");
		}
		if (this.row.chaosConsumer() != null) {
			// a parent halted between starting its children, not again when a resumption replays the step
			chaos.put("sample.chaos.consumer", this.row.chaosConsumer());
			chaos.put("sample.chaos.skip-replayed", "true");
		}
		if (this.row.graceful()) {
			chaos.put("sample.chaos.graceful", "true");
		}
		return chaos;
	}

	/**
	 * How long a delivery waits at the row's chaos point: to be frozen there ({@link Fault#ZOMBIE_AT_POINT}),
	 * or half the shutdown timeout ({@link Fault#STORE_DOWN_SIGTERM}), so that its completion record is
	 * written inside the SIGTERM's shutdown, against the stopped store.
	 */
	private Duration stall() {
		return (this.row.fault() == Fault.STORE_DOWN_SIGTERM) ? this.row.shutdownTimeout().dividedBy(2) : STALL;
	}

	/**
	 * Restarts every consumer JVM that died: a chaos halt or the exit of the JVM the row sent SIGTERM
	 * (after which its store is restarted) is an injection, anything else is unexpected.
	 */
	private void supervise() {
		for (ConsumerSlot slot : this.slots) {
			if (slot.hasProcess() && !slot.alive()) {
				int status = slot.exitStatus();
				if (status == HALT_STATUS) {
					this.chaosHalts++;
				}
				else if (!this.sigterms.exited(slot, status) && !this.waitKills.exited(slot)
						&& (this.limits == null || !this.limits.exited(slot))) {
					this.unexpected.add("consumer " + slot.name() + "." + slot.incarnations() + " exited with status "
							+ status + " (see " + slot.directory().resolve("console.log") + ")");
				}
				slot.clear();
				slot.start(this.common, incarnationProperties(slot));
			}
		}
	}

	private boolean superviseAnd(java.util.function.BooleanSupplier condition) {
		supervise();
		return condition.getAsBoolean();
	}

	private void killPublisherWhenDue() {
		int planned = (this.row.fault() == Fault.PUBLISHER) ? this.profile.injectionsPerRow()
				: this.profile.publisherKillsPerRow();
		if (this.publisher.done() || this.publisher.kills() >= planned) {
			return;
		}
		int nextKillAfter = (this.publisher.kills() + 1) * this.profile.tasksPerRow() / (planned + 1);
		if (this.publisher.highestConfirmed() >= nextKillAfter) {
			this.publisher.killAndRestart();
			if (this.row.fault() == Fault.PUBLISHER) {
				this.injections++;
			}
		}
	}

	/** Polls stream and consumer state: is work left, is everything settled. */
	private void pollState() {
		long now = System.nanoTime();
		if (now - this.lastStatePoll < STATE_POLL_MILLIS * 1_000_000) {
			return;
		}
		this.lastStatePoll = now;
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			StreamInfo stream = management.getStreamInfo(TaskPublisher.STREAM);
			ConsumerInfo consumer = management.getConsumerInfo(TaskPublisher.STREAM, CONSUMER);
			ConsumerInfo deploys = management.getConsumerInfo(TaskPublisher.STREAM, DEPLOY_CONSUMER);
			long messages = stream.getStreamState().getMsgCount();
			boolean settled = consumer.getNumAckPending() == 0 && consumer.getNumPending() == 0
					&& campaignsSettled(management);
			boolean deployed = deploys.getNumAckPending() == 0 && deploys.getNumPending() == 0;
			// a waiting task (or campaign, or a task under a limit) is acknowledged: its work remains until
			// its ledger line
			this.workRemaining = !this.publisher.done() || !settled
					|| ((this.signals != null || this.limits != null)
							&& Evidence.ledgerLines(this.slots) < this.profile.tasksPerRow())
					|| (this.row.campaigns() && !allTasksExecuted());
			this.drained = this.publisher.done() && settled && deployed && this.resumeAt.isEmpty()
					&& this.downNode == null && !this.outages.active() && !this.sigterms.active()
					&& allTasksAccounted();
			this.leftInStream = (int) messages;
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			this.drained = false;
		}
	}

	/** Whether the CEO agent's consumer has nothing pending or unacknowledged (always, outside the campaigns' rows). */
	private boolean campaignsSettled(JetStreamManagement management) throws IOException, JetStreamApiException {
		if (!this.row.campaigns()) {
			return true;
		}
		ConsumerInfo campaigns = management.getConsumerInfo(TaskPublisher.STREAM, CAMPAIGN_CONSUMER);
		return campaigns.getNumAckPending() == 0 && campaigns.getNumPending() == 0;
	}

	/** Whether every task (campaign) has its ledger line. */
	private boolean allTasksExecuted() {
		Map<String, Integer> executions = Evidence.executions(this.slots);
		return java.util.stream.IntStream.range(0, this.profile.tasksPerRow())
			.allMatch((i) -> executions.containsKey(TaskPublisher.taskId(this.prefix, i)));
	}

	/** Every task has an execution in a ledger (and its row on a database) or a dead letter. */
	private boolean allTasksAccounted() {
		Map<String, Integer> executions = Evidence.executions(this.slots);
		PostRows posts = posts();
		Map<String, String> parked = null;
		for (int i = 0; i < this.profile.tasksPerRow(); i++) {
			String id = TaskPublisher.taskId(this.prefix, i);
			if (!executions.containsKey(id) || !posts.has(id)) {
				parked = (parked != null) ? parked : this.deadLetters.read();
				if (!parked.containsKey(id)) {
					return false;
				}
			}
		}
		return true;
	}

	/** The row's business rows on a database, else {@link PostRows#NONE}. */
	private PostRows posts() {
		return (this.database != null) ? this.database.posts(this.prefix) : PostRows.NONE;
	}

	private void inject() {
		switch (this.row.fault()) {
			case ZOMBIE -> injectZombie();
			case ZOMBIE_AT_POINT -> freezeStalled();
			case NATS_RESTART -> {
				this.restarts.poll();
				restartNats();
			}
			case WAIT_KILL -> {
				if (this.workRemaining && this.waitKills.poll(this.slots, this.signals.lastWaiting(),
						Evidence.ledgerLines(this.slots))) {
					this.injections++;
				}
			}
			case CLUSTER_NODE_KILL -> killClusterNode();
			case LIMIT_KILL, LIMIT_RATE -> {
				if (this.workRemaining) {
					this.injections += this.limits.poll(this.slots, Evidence.ledgerLines(this.slots), this.nats);
				}
			}
			case STORE_RESTART, STORE_STALL -> {
				if (this.outages.poll(Evidence.ledgerLines(this.slots), this.workRemaining)) {
					this.injections++;
				}
			}
			case STORE_DOWN_SIGTERM -> {
				if (this.sigterms.poll(this.slots)) {
					this.injections++;
				}
			}
			case PARTITION, STORE_PARTITION -> {
				// cut right after the partitioned consumer's next model call: mid-handler, before its commit
				if (this.outages.poll(Evidence.modelCalls(this.slots.get(this.slots.size() - 1)), this.workRemaining)) {
					this.injections++;
				}
			}
			default -> {
			}
		}
	}

	private void injectZombie() {
		long now = System.nanoTime();
		resumeDue(now);
		if (this.injections >= this.profile.injectionsPerRow() || !this.workRemaining || now < this.nextInjectionAt
				|| this.resumeAt.size() >= this.slots.size() - 1) {
			return;
		}
		List<ConsumerSlot> candidates = this.slots.stream()
			.filter((slot) -> slot.alive() && !slot.stopped() && slot.ready())
			.toList();
		if (candidates.isEmpty()) {
			return;
		}
		pause(candidates.get(this.random.nextInt(candidates.size())), now);
		this.nextInjectionAt = now + (200 + this.random.nextInt(500)) * 1_000_000L;
	}

	/**
	 * Freezes a consumer JVM whose chaos log got a line since the last look: a delivery stalls at the
	 * row's point ({@code sample.chaos.stall}) for the driver to pause it there.
	 */
	private void freezeStalled() {
		long now = System.nanoTime();
		resumeDue(now);
		for (ConsumerSlot slot : this.stalls.newlyStalled(this.slots)) {
			if (this.injections < this.profile.injectionsPerRow() && this.resumeAt.size() < this.slots.size() - 1) {
				pause(slot, now);
			}
		}
	}

	private void pause(ConsumerSlot zombie, long now) {
		zombie.pause();
		this.resumeAt.put(zombie, now + this.profile.zombiePause().toNanos());
		this.injections++;
	}

	private void resumeDue(long now) {
		this.resumeAt.entrySet().removeIf((entry) -> {
			if (now >= entry.getValue()) {
				entry.getKey().resume();
				return true;
			}
			return false;
		});
	}

	/** kill -9 of the nats-server whenever the consumers made progress since the previous restart. */
	private void restartNats() {
		long now = System.nanoTime();
		int progress = Evidence.ledgerLines(this.slots);
		if (this.injections >= this.profile.injectionsPerRow() || !this.workRemaining || now < this.nextInjectionAt
				|| progress <= this.lastProgress) {
			return;
		}
		this.restarts.beforeKill(this.injections + 1);
		this.nats.restartServer();
		this.injections++;
		this.restarts.restarted(this.injections);
		this.lastProgress = progress;
		this.nextInjectionAt = now + 1_000_000_000L;
	}

	/**
	 * kill -9 of one node, restarted once the others made progress without it (or after 5 s), then
	 * the next node once the restarted one is healthy again.
	 */
	private void killClusterNode() {
		long now = System.nanoTime();
		int progress = Evidence.ledgerLines(this.slots);
		if (this.downNode != null) {
			boolean progressed = progress > this.progressAtKill;
			if (progressed || now - this.nodeDownSince > 5_000_000_000L) {
				this.tasksWhileNodeDown += progress - this.progressAtKill;
				ClusterNode node = this.downNode;
				node.start();
				Waits.until(node.name() + " to report healthy after its restart", Duration.ofSeconds(60),
						node::healthy);
				this.downNode = null;
				this.lastProgress = progress;
				this.nextInjectionAt = now + 500_000_000L;
			}
			return;
		}
		if (this.injections >= this.profile.injectionsPerRow() || !this.workRemaining || now < this.nextInjectionAt
				|| progress <= this.lastProgress) {
			return;
		}
		List<ClusterNode> nodes = this.nats.nodes();
		this.downNode = nodes.get(this.injections % nodes.size());
		this.downNode.kill();
		this.nodeDownSince = now;
		this.progressAtKill = progress;
		this.injections++;
	}

	private void resumeAll() {
		this.outages.end();
		this.sigterms.end();
		this.resumeAt.keySet().forEach(ConsumerSlot::resume);
		this.resumeAt.clear();
		if (this.downNode != null) {
			this.downNode.start();
			this.downNode = null;
		}
	}

	private boolean consumerExists() {
		try {
			this.connection.jetStreamManagement().getConsumerInfo(TaskPublisher.STREAM, CONSUMER);
			return true;
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			return false;
		}
	}

	private String describeState() {
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			ConsumerInfo consumer = management.getConsumerInfo(TaskPublisher.STREAM, CONSUMER);
			return "stream messages " + management.getStreamInfo(TaskPublisher.STREAM).getStreamState().getMsgCount()
					+ ", pending " + consumer.getNumPending() + ", ack pending " + consumer.getNumAckPending()
					+ ", awaiting redelivery " + consumer.getRedelivered() + ", publisher done " + this.publisher.done();
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			return "state unreadable: " + ex.getMessage();
		}
	}

	private RowResult verdict(Duration elapsed) throws IOException {
		Map<String, Integer> executions = Evidence.executions(this.slots);
		Map<String, String> deadLetters = this.deadLetters.read();
		List<String> halts = Evidence.chaosHalts(this.slots);
		long stored = this.publisher.storedTasks();
		int tasks = this.profile.tasksPerRow();
		int injected = switch (this.row.fault()) {
			case CHAOS -> halts.size();
			case CLOCK_SKEW -> (int) Math.max(0, stored - tasks);
			default -> this.injections;
		};
		if (this.row.fault() == Fault.CHAOS && halts.size() != this.chaosHalts) {
			this.unexpected.add(halts.size() + " chaos log lines but " + this.chaosHalts + " JVMs exited with status "
					+ HALT_STATUS);
		}
		PostRows posts = posts();
		int duplicates = 0;
		int lost = 0;
		int stuck = 0;
		Set<String> missing = new java.util.TreeSet<>();
		Set<String> unsettled = Evidence.messageIdsIn(this.connection, TaskPublisher.STREAM);
		int deadLettered = 0;
		int total = 0;
		for (int i = 0; i < tasks; i++) {
			String id = TaskPublisher.taskId(this.prefix, i);
			int count = executions.getOrDefault(id, 0);
			total += count;
			duplicates += Math.max(0, count - 1);
			boolean parked = deadLetters.containsKey(id);
			deadLettered += parked ? 1 : 0;
			if (count == 0 && !parked && unsettled.contains(id)) {
				stuck++;
				missing.add(id);
			}
			else if ((count == 0 || !posts.has(id)) && !parked) {
				lost++;
				missing.add(id);
			}
		}
		executions.keySet()
			.stream()
			.filter((id) -> !(this.row.campaigns() && CampaignVerdict.isPost(id, this.prefix)))
			.filter((id) -> !id.startsWith(this.prefix + "-")
					|| Integer.parseInt(id.substring(this.prefix.length() + 1)) >= tasks)
			.forEach((id) -> this.unexpected.add("ledger has unknown task " + id));
		deadLetters.forEach((key, reason) -> {
			if (reason == null || reason.isBlank()) {
				this.unexpected.add("dead letter of " + key + " has no reason");
			}
		});
		if (this.row.parksNothing()) {
			checkCrashesResumed(deadLetters, halts);
		}
		SideEffects sideEffects = SideEffects.read(repository(), this.slots);
		checkSideEffects(sideEffects, deadLetters, tasks);
		if (this.limits != null) {
			this.limits.judge(this.slots, this.prefix, this.unexpected, this.notes);
		}
		if (stored < tasks) {
			this.unexpected.add("stream TASKS stored " + stored + " messages for " + tasks + " task ids");
		}
		else if (stored > tasks && this.row.fault() != Fault.CLOCK_SKEW) {
			this.notes.add((stored - tasks) + " republished task(s) stored again (the restarted server no longer knew "
					+ "the message id of a consumed WorkQueue message); the consumer acked them as duplicates unrun");
		}
		notes(deadLetters);
		if (!missing.isEmpty()) {
			this.notes.add(captureLossEvidence(missing));
		}
		return new RowResult(this.row, tasks, injected, total, duplicates, lost, deadLettered, List.copyOf(this.unexpected),
				this.publisher.kills(), this.publisher.duplicatesSuppressed(), List.copyOf(this.notes), elapsed,
				sideEffects, stuck, null, posts, this.profile.pipelined());
	}

	/**
	 * Writes what NATS and the processes knew about the lost or stuck tasks to the row's directory
	 * ({@link LossEvidence}), while the row's NATS still runs.
	 * @return the line for the notes
	 */
	private String captureLossEvidence(Set<String> missing) {
		List<ClusterNode> nodes = (this.row.fault() == Fault.CLUSTER_NODE_KILL) ? this.nats.nodes() : List.of();
		String line = LossEvidence.capture(this.directory, this.connection, nodes, TaskPublisher.STREAM,
				List.of(CONSUMER, DEPLOY_CONSUMER), this.publisher.acksOf(missing), List.copyOf(missing),
				this.slots.stream().map(ConsumerSlot::directory).toList());
		this.log.line(line);
		return line;
	}

	/**
	 * A task is dead-lettered only when each of its max-deliver attempts crashed: waiting for a dead
	 * holder's lease, or a shutdown that released it, never uses up its deliveries.
	 */
	private void checkCrashesResumed(Map<String, String> deadLetters, List<String> halts) {
		int maxDeliver = (this.row.maxDeliver() > 0) ? this.row.maxDeliver() : this.profile.maxDeliver();
		deadLetters.forEach((id, reason) -> {
			long crashes = halts.stream().filter((line) -> line.split(" ")[1].equals(id)).count();
			if (crashes < maxDeliver) {
				this.unexpected.add("task " + id + " dead-lettered after " + crashes + " crash(es) with max-deliver "
						+ maxDeliver + " (" + reason + ")");
			}
		});
	}

	/**
	 * Every task not dead-lettered has a commit and a deploy of that commit (in a durable waits' row, as
	 * {@link WaitVerdict} says: a rejected task neither; in a campaigns' row as {@link CampaignVerdict}
	 * says); nothing else was committed.
	 */
	private void checkSideEffects(SideEffects sideEffects, Map<String, String> deadLetters, int tasks) {
		List<String> taskIds = java.util.stream.IntStream.range(0, tasks)
			.mapToObj((i) -> TaskPublisher.taskId(this.prefix, i))
			.toList();
		if (this.row.campaigns()) {
			CampaignVerdict campaigns = new CampaignVerdict(taskIds, sideEffects, Evidence.executions(this.slots),
					CampaignVerdict.Logs.read(this.slots), CHILD_RECHECK_INTERVAL);
			this.unexpected.addAll(campaigns.failures());
			this.notes.add(campaigns.note());
			return;
		}
		if (this.signals != null) {
			WaitVerdict waits = new WaitVerdict(this.signals, sideEffects, deadLetters, taskIds,
					WAIT_RECHECK.plus(WAIT_RECHECK_SLACK), this.row.signalsResumeOnly());
			this.unexpected.addAll(waits.failures());
			this.notes.add(waits.note(this.signals));
		}
		for (int i = 0; i < tasks && this.signals == null; i++) {
			String id = TaskPublisher.taskId(this.prefix, i);
			if (!deadLetters.containsKey(id) && !sideEffects.commits().containsKey(id)) {
				this.unexpected.add("task " + id + " has no commit in " + repository());
			}
			if (!deadLetters.containsKey(id) && !sideEffects.deploys().containsKey(id)) {
				this.unexpected.add("task " + id + " was not deployed");
			}
		}
		sideEffects.commits().keySet().stream().filter((id) -> !id.startsWith(this.prefix + "-"))
			.forEach((id) -> this.unexpected.add("commit of unknown task " + id));
		if (sideEffects.deploysOfOtherCommits() > 0) {
			this.unexpected.add(sideEffects.deploysOfOtherCommits() + " deploy(s) of a sha that is not their task's commit");
		}
	}

	private void notes(Map<String, String> deadLetters) {
		int claimsLost = Evidence.consoleLinesContaining(this.slots, "was taken over while its handler ran");
		if (claimsLost > 0) {
			this.notes.add(claimsLost + " completion(s) refused to a zombie (claim lost)");
		}
		int parked = Evidence.consoleLinesContaining(this.slots, "the completion is parked on NATS");
		if (parked > 0) {
			this.notes.add(parked + " completion(s) parked on NATS when a listener stopped (completion_parked), "
					+ Evidence.consoleLinesContaining(this.slots, "parked its completion; recorded now")
					+ " recorded from there by the next attempt without running the handler (completion_recovered)");
		}
		int ackRaces = Evidence.consoleLinesContaining(this.slots, "chaos: during-ack halt");
		if (ackRaces > 0) {
			int confirmedFirst = Evidence.consoleLinesContaining(this.slots, "ack confirmed first: true");
			this.notes.add(confirmedFirst + " of " + ackRaces + " halts came after the ack was confirmed");
		}
		int gone = Evidence.consoleLinesContaining(this.slots, "ran out of deliveries but is no longer in the stream");
		if (gone > 0) {
			this.notes.add(gone + " message(s) ran out of deliveries while no longer in the stream (MAX_DELIVERIES "
					+ "advisories of sequences the stream had removed"
					+ (ClusterSupport.keepsPendingOfRemovedMessages() ? ": nats-server " + ClusterSupport.installedVersion()
							+ " kept each ack-pending, holding a max-ack-pending slot, for max-deliver x ack-wait after a "
							+ "restart; fixed in 2.11.0, docs/compatibility.md)" : ")"));
		}
		int ackUnconfirmed = Evidence.consoleLinesContaining(this.slots, "not confirmed (");
		if (ackUnconfirmed > 0) {
			this.notes.add(ackUnconfirmed + " ack(s) not confirmed");
		}
		if (this.leftInStream > 0) {
			this.notes.add(this.leftInStream + " message(s) left in the WorkQueue stream with nothing pending for the"
					+ " consumer (their acks were not applied to the stream before the kill)");
		}
		if (this.row.fault() == Fault.CLUSTER_NODE_KILL) {
			this.notes.add(this.tasksWhileNodeDown + " task(s) completed while a node was down");
		}
		if (this.row == FaultRow.WAIT_KILL_AFTER_SIGNAL) {
			List<String> halts = Evidence.chaosHalts(this.slots);
			long beforeResume = halts.stream().filter((line) -> line.startsWith("signal-taken/decision-stored ")).count();
			this.notes.add(beforeResume + " halt(s) after the decision was stored (task not reopened), "
					+ (halts.size() - beforeResume) + " after its RESUME entry (copy not published)");
		}
		if (this.row.fault() == Fault.CLOCK_SKEW) {
			int ahead = Evidence.ledgerLines(List.of(this.slots.get(0)));
			this.notes.add(ahead + " of " + Evidence.ledgerLines(this.slots) + " executions by the consumer whose clock "
					+ "is " + CLOCK_SKEW.toSeconds() + " s ahead (" + this.slots.get(0).name() + ")");
		}
		Map<String, Integer> reasons = new java.util.TreeMap<>();
		deadLetters.values().forEach((reason) -> reasons.merge(String.valueOf(reason), 1, Integer::sum));
		reasons.forEach((reason, count) -> this.notes.add(count + " dead letter(s): " + reason));
		int restarts = this.slots.stream().mapToInt(ConsumerSlot::incarnations).sum();
		this.notes.add(restarts + " consumer JVM start(s)");
	}

}
