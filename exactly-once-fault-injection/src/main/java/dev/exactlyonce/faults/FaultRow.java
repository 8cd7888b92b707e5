package dev.exactlyonce.faults;

import java.time.Duration;

/**
 * One row of the fault matrix: a fault and how it is injected.
 */
public enum FaultRow {

	/** Consumer halted when a message arrived, before the claim. */
	KILL_RECEIVED("kill -9 before the claim (RECEIVED)", Fault.CHAOS, "received", "retry"),

	/** Consumer halted right after acquiring the claim. */
	KILL_CLAIMED("kill -9 after the claim (CLAIMED)", Fault.CHAOS, "claimed", "retry"),

	/** Consumer halted half-way through the handler, before its side effect. */
	KILL_MID_HANDLER("kill -9 mid-handler, before the side effect", Fault.CHAOS, "mid-handler", "retry"),

	/** Consumer halted after the side effect, before the completion record; the task is retried. */
	KILL_HANDLED_RETRY("kill -9 after the side effect, before the completion record (HANDLED), on-abandoned=retry",
			Fault.CHAOS, "handled", "retry"),

	/** Consumer halted after the side effect, before the completion record; the task is parked. */
	KILL_HANDLED_DEAD_LETTER(
			"kill -9 after the side effect, before the completion record (HANDLED), on-abandoned=dead-letter",
			Fault.CHAOS, "handled", "dead-letter"),

	/** Consumer halted inside the commit step after its git commit, before its DONE record; the probe finds it. */
	KILL_IN_COMMIT("kill -9 inside step commit, after the git commit, before its DONE record (probe: git log --grep)",
			Fault.CHAOS, "step-performed", "commit", true),

	/** Consumer halted inside the commit step after its git commit, before its DONE record; no probe. */
	KILL_IN_COMMIT_NO_PROBE(
			"kill -9 inside step commit, after the git commit, before its DONE record (no probe), on-abandoned=retry",
			Fault.CHAOS, "step-performed", "commit", false),

	/**
	 * SIGTERM (an exit through the shutdown hooks) of a consumer inside the commit step after its git
	 * commit, the action deaf to interrupts: the shutdown releases the claim and gives its attempt
	 * back; the next attempt must still probe the step, never commit again.
	 */
	SIGTERM_IN_COMMIT("SIGTERM inside step commit, after the git commit, its action deaf to interrupts (claim "
			+ "released at shutdown, attempt given back; probe: git log --grep)", Fault.CHAOS, "step-performed", "commit",
			true, true, 0, null),

	/**
	 * Consumer halted inside the commit step with max-deliver 3 and a lease four times the ack wait:
	 * the redeliveries run out waiting for the dead holder's lease; the task must resume, never be
	 * dead-lettered.
	 */
	KILL_IN_COMMIT_FEW_DELIVERIES("kill -9 inside step commit (probe), max-deliver 3, lease 4 x ack wait: the "
			+ "deliveries run out waiting for the dead holder's lease", Fault.CHAOS, "step-performed", "commit", true,
			false, 3, Duration.ofSeconds(12)),

	/** Consumer halted between steps: draft journaled DONE, commit not started. */
	KILL_BETWEEN_STEPS("kill -9 between steps (draft DONE, commit not started)", Fault.CHAOS, "step-done", "draft",
			true),

	/** Consumer halted inside ctx.publish: the deploy task published, the publish step not journaled DONE. */
	KILL_IN_PUBLISH("kill -9 inside ctx.publish, after the publish, before its DONE record", Fault.CHAOS,
			"step-performed", "publish:agents.devops.tasks.deploy", true),

	/** Consumer halted after the completion record, before the ack. */
	KILL_COMPLETED("kill -9 after the completion record, before the ack (COMPLETED)", Fault.CHAOS, "completed",
			"retry"),

	/** Consumer halted by a thread racing the synchronous ack. */
	KILL_DURING_ACK("kill -9 during the ack (halt racing ackSync, 0-2 ms after COMPLETED)", Fault.CHAOS, "during-ack",
			"retry"),

	/** Consumer halted after the server confirmed the ack. */
	KILL_ACKED("kill -9 after the ack (ACKED)", Fault.CHAOS, "acked", "retry"),

	/** Consumer paused (SIGSTOP) past its lease and the ack wait, then resumed; the task is retried. */
	ZOMBIE_RETRY("SIGSTOP past the lease, then SIGCONT (zombie), on-abandoned=retry", Fault.ZOMBIE, null, "retry"),

	/**
	 * Consumer paused (SIGSTOP) with a handler between its side effect and its completion record (on
	 * {@code --store=jdbc}: after its row of {@code posts}, before the commit), past the lease and the
	 * ack wait, then resumed; its completion is refused and the task retried.
	 */
	ZOMBIE_HANDLED_RETRY("SIGSTOP after the side effect, before the completion record (HANDLED; jdbc: after the "
			+ "business write, before the commit), past the lease, then SIGCONT (zombie), on-abandoned=retry",
			Fault.ZOMBIE_AT_POINT, "handled", "retry"),

	/** Consumer paused past its lease, then resumed; the abandoned task is parked. */
	ZOMBIE_DEAD_LETTER("SIGSTOP past the lease, then SIGCONT (zombie), on-abandoned=dead-letter", Fault.ZOMBIE, null,
			"dead-letter"),

	/** The publisher JVM killed mid-batch and restarted, republishing with the same message ids. */
	PUBLISHER_KILL("publisher kill -9 mid-batch, restarted with the same message ids", Fault.PUBLISHER, null, "retry"),

	/** The nats-server (also the NATS KV store) killed and restarted under load. */
	NATS_RESTART("nats-server kill -9 + restart under load (= NATS KV store killed/restarted), lease 10 s",
			Fault.NATS_RESTART, null, "retry"),

	/** One node of a 3-node JetStream cluster (R3 stream and KV bucket) killed and restarted under load. */
	CLUSTER_NODE_KILL("3-node cluster (R3 stream + R3 KV): one node kill -9 + restart under load, lease 10 s",
			Fault.CLUSTER_NODE_KILL, null, "retry"),

	/**
	 * One consumer JVM's clock a minute ahead (far more than the lease), each task published twice so
	 * that both consumers claim it at once, tasks longer than half the lease.
	 */
	CLOCK_AHEAD("one consumer's clock 60 s ahead (libfaketime), each task published twice, tasks of 3/4 lease",
			Fault.CLOCK_SKEW, null, "retry"),

	/** The Redis store's server (append-only file, {@code appendfsync always}) killed and restarted under load. */
	REDIS_RESTART("store redis (appendfsync always): redis-server kill -9 + restart under load", Fault.STORE_RESTART,
			"redis"),

	/** The Redis store's server paused past its request timeout, the lease and the ack wait. */
	REDIS_STALL("store redis: redis-server SIGSTOP past request timeout, lease and ack wait, then SIGCONT",
			Fault.STORE_STALL, "redis"),

	/**
	 * A consumer held after its side effect, before its completion record (HANDLED) while the Redis
	 * store's server is paused, then sent SIGTERM: its shutdown timeout runs out while the record is
	 * retried, the completion is parked on NATS; the server is restarted once the JVM exited (what it
	 * had not read is lost), and the attempt that takes the key over records the parked completion
	 * instead of running the handler.
	 */
	STORE_DOWN_THEN_SIGTERM("store redis: a consumer held after the side effect, before the completion record "
			+ "(HANDLED); redis-server SIGSTOP, SIGTERM of that consumer (shutdown timeout 4 s runs out while the "
			+ "record is retried), once it exited redis-server kill -9 + restart (appendfsync always: what it had "
			+ "not read is lost), lease 7 s", Fault.STORE_DOWN_SIGTERM, "handled", "retry", null, true, "redis",
			false, 0, Duration.ofSeconds(7)),

	/** The Firestore emulator paused past its request timeout, the lease and the ack wait. */
	FIRESTORE_STALL("store firestore (emulator): SIGSTOP past request timeout, lease and ack wait, then SIGCONT",
			Fault.STORE_STALL, "firestore"),

	/**
	 * One consumer JVM in its own network namespace; its veth link cut past the lease and the ack
	 * wait, then healed: it is cut off from NATS and the store while its handler runs.
	 */
	PARTITION_RETRY("network partition: one consumer's veth link (NATS + store) cut past lease and ack wait, then "
			+ "healed, on-abandoned=retry", Fault.PARTITION, null),

	/** As {@link #PARTITION_RETRY}, with abandoned claims parked. */
	PARTITION_DEAD_LETTER("network partition: one consumer's veth link (NATS + store) cut past lease and ack wait, "
			+ "then healed, on-abandoned=dead-letter", Fault.PARTITION, null, "dead-letter", null, true, null),

	/** One consumer JVM in its own network namespace; only its route to Redis blackholed, NATS reachable. */
	STORE_PARTITION("network partition of the store only: one consumer's route to redis blackholed past lease and "
			+ "ack wait (NATS reachable), then healed", Fault.STORE_PARTITION, "redis"),

	/**
	 * Durable waits: a consumer halted once a task is suspended at its approval wait (its ticket and
	 * WAITING record written), before the ack; the redelivered copy must be acknowledged unrun and the
	 * signal resume the task.
	 */
	WAIT_KILL_BEFORE_ACK("durable waits: kill -9 after the wait's ticket and WAITING record, before the ack "
			+ "(SUSPENDED), then the approval signal", Fault.CHAOS, "suspended", "retry"),

	/**
	 * Durable waits: the marketing agent waits for its {@code approval} signal; the consumers are
	 * killed (kill -9) while tasks wait, and the signalling driver signals a live one through the
	 * operations endpoint ({@link SignallingDriver}).
	 */
	WAIT_KILL_WHILE_WAITING("durable waits: a consumer kill -9 while tasks wait for their approval signal, the "
			+ "signals sent to a live consumer's operations endpoint (retried with the same id)", Fault.WAIT_KILL, null),

	/**
	 * Durable waits: the consumer JVM that took an approval signal (through its operations endpoint)
	 * halted after the signal is stored as its wait's decision and before the task's copy is
	 * published (before or after its RESUME entry, at random); the sender gets no answer and sends it
	 * again with its id, and the task resumes by that or by the timer's next look.
	 */
	WAIT_KILL_AFTER_SIGNAL("durable waits: kill -9 of the consumer that took the approval signal, after the signal "
			+ "is stored as the wait's decision, before the task's copy is published (before or after its RESUME "
			+ "entry), recheck-interval 5 s", Fault.CHAOS, "signal-taken", "retry"),

	/**
	 * Durable waits: the nats-server (also the NATS KV store, the waits' tickets and decisions) killed
	 * and restarted while tasks wait and signals arrive; a signal answered 503 is sent again with its id.
	 */
	WAIT_NATS_RESTART("durable waits: nats-server kill -9 + restart while tasks wait and signals arrive (sent "
			+ "again with the same id when answered 503), lease 10 s", Fault.NATS_RESTART, null),

	/**
	 * Durable waits on the Redis store: redis-server killed and restarted while tasks wait and signals
	 * arrive; a signal the store could not take is answered 503 and sent again with the same id.
	 */
	WAIT_STORE_OUTAGE("durable waits, store redis (appendfsync always): redis-server kill -9 + restart while tasks "
			+ "wait and signals arrive (sent again with the same id when answered 503)", Fault.STORE_RESTART, "redis"),

	/**
	 * Child tasks: the sample's CEO agent runs campaigns (three marketing children, awaited together,
	 * then one deploy child); its JVM halted between starting children (the first child's
	 * {@code startChild} step journaled, the other two not started). A campaign run again must start
	 * no child twice.
	 */
	CHILD_KILL_PARENT_FANOUT("child tasks: kill -9 of the parent's JVM between starting children (the first "
			+ "startChild step DONE, the others not started)", Fault.CHAOS, "step-done", "retry", "blog-post", true),

	/**
	 * Child tasks: a marketing child's JVM halted once its result is stored as its parent's decision,
	 * before the parent is resumed (and before the child's completion record and ack): the child's
	 * retry, or the wait timer's next look, must resume the parent.
	 */
	CHILD_KILL_AFTER_COMPLETION("child tasks: kill -9 of a child's JVM after its result is stored for the parent, "
			+ "before the parent is resumed, its completion record and its ack (CHILD_RESULT_STORED)", Fault.CHAOS,
			"child-result-stored", "retry"),

	/**
	 * Child tasks: the nats-server (stream, KV store, the waits' tickets and decisions) killed and
	 * restarted while campaigns wait for their children.
	 */
	CHILD_NATS_RESTART("child tasks: nats-server kill -9 + restart while parents wait for their children, lease 10 s",
			Fault.NATS_RESTART, null),

	/**
	 * Limits: the marketing agent under {@code concurrency: 2} per key ({@link LimitRows}); a consumer
	 * JVM killed (kill -9) while it holds a slot, restarted at once; its holders counted from outside.
	 */
	LIMIT_KILL_HOLDERS("limits: concurrency 2 per key (3 keys, 8 workers per JVM, work 8 s, lease 10 s), kill -9 "
			+ "of a consumer JVM while it holds a slot (another one running), restarted at once", Fault.LIMIT_KILL, null),

	/**
	 * Limits: the marketing agent under {@code rate: 20, per: 1m}, tasks published at three times the
	 * rate; every consumer JVM killed (kill -9) half-way, the nats-server at three quarters.
	 */
	LIMIT_RATE_10MIN("limits: rate 20 per minute, published at 3 x the rate, every consumer JVM kill -9 half-way "
			+ "and the nats-server kill -9 at three quarters of the measured minutes, lease 10 s", Fault.LIMIT_RATE,
			null);

	private final String label;

	private final Fault fault;

	private final String chaosPoint;

	private final String onAbandoned;

	private final String chaosStep;

	private final boolean commitProbe;

	private final String store;

	private final boolean graceful;

	private final int maxDeliver;

	private final Duration lease;

	FaultRow(String label, Fault fault, String chaosPoint, String onAbandoned) {
		this(label, fault, chaosPoint, onAbandoned, null, true);
	}

	FaultRow(String label, Fault fault, String store) {
		this(label, fault, null, "retry", null, true, store);
	}

	FaultRow(String label, Fault fault, String chaosPoint, String chaosStep, boolean commitProbe) {
		this(label, fault, chaosPoint, "retry", chaosStep, commitProbe);
	}

	FaultRow(String label, Fault fault, String chaosPoint, String onAbandoned, String chaosStep,
			boolean commitProbe) {
		this(label, fault, chaosPoint, onAbandoned, chaosStep, commitProbe, null);
	}

	FaultRow(String label, Fault fault, String chaosPoint, String onAbandoned, String chaosStep, boolean commitProbe,
			String store) {
		this(label, fault, chaosPoint, onAbandoned, chaosStep, commitProbe, store, false, 0, null);
	}

	FaultRow(String label, Fault fault, String chaosPoint, String chaosStep, boolean commitProbe, boolean graceful,
			int maxDeliver, Duration lease) {
		this(label, fault, chaosPoint, "retry", chaosStep, commitProbe, null, graceful, maxDeliver, lease);
	}

	FaultRow(String label, Fault fault, String chaosPoint, String onAbandoned, String chaosStep, boolean commitProbe,
			String store, boolean graceful, int maxDeliver, Duration lease) {
		this.graceful = graceful;
		this.maxDeliver = maxDeliver;
		this.lease = lease;
		this.label = label;
		this.store = store;
		this.fault = fault;
		this.chaosPoint = chaosPoint;
		this.onAbandoned = onAbandoned;
		this.chaosStep = chaosStep;
		this.commitProbe = commitProbe;
	}

	/**
	 * The consumers' {@code exactlyonce.listener.shutdown-timeout}: short where a SIGTERM is the fault,
	 * so injections are quick ({@link #SIGTERM_IN_COMMIT} releases its claim within it; in
	 * {@link #STORE_DOWN_THEN_SIGTERM} the held delivery resumes half-way through it and writes its
	 * completion record against the stopped store), else 20 s.
	 * @return the timeout
	 */
	public Duration shutdownTimeout() {
		if (this.fault == Fault.STORE_DOWN_SIGTERM) {
			return Duration.ofSeconds(4);
		}
		return this.graceful ? Duration.ofSeconds(2) : Duration.ofSeconds(20);
	}

	/** Whether the chaos point exits through the shutdown hooks (a SIGTERM) instead of halting. */
	public boolean graceful() {
		return this.graceful;
	}

	/**
	 * The consumer's max-deliver in this row, or 0 for the profile's.
	 * @return the override
	 */
	public int maxDeliver() {
		return this.maxDeliver;
	}

	/**
	 * The claim lease in this row, or {@code null} for the profile's.
	 * @return the override
	 */
	public Duration lease() {
		return this.lease;
	}

	/**
	 * Whether a crash must resume the task rather than park it: a dead letter of a task that did not
	 * crash on every one of its max-deliver attempts fails the row.
	 */
	public boolean parksNothing() {
		return this == KILL_IN_COMMIT_FEW_DELIVERIES || this == SIGTERM_IN_COMMIT;
	}

	/**
	 * Whether every signal taken must be answered {@code RESUMED} or {@code DUPLICATE}: the driver
	 * signals only tasks listed {@code WAITING}, so in a row whose fault never reopens a task behind
	 * its back a {@code BUFFERED} is wrong.
	 */
	public boolean signalsResumeOnly() {
		return this == WAIT_KILL_AFTER_SIGNAL;
	}

	/**
	 * Whether the marketing agent waits for its approval signal in this row, sent by the
	 * {@link SignallingDriver} (a fixed share rejected), and the {@link WaitVerdict} judges it.
	 */
	public boolean waits() {
		return this == WAIT_KILL_BEFORE_ACK || this == WAIT_KILL_WHILE_WAITING || this == WAIT_KILL_AFTER_SIGNAL
				|| this == WAIT_NATS_RESTART || this == WAIT_STORE_OUTAGE;
	}

	/**
	 * Whether the row runs the sample's campaigns (a CEO parent, three marketing children and one
	 * deploy child each) instead of marketing tasks, judged by the {@link CampaignVerdict}.
	 */
	public boolean campaigns() {
		return this == CHILD_KILL_PARENT_FANOUT || this == CHILD_KILL_AFTER_COMPLETION || this == CHILD_NATS_RESTART;
	}

	/**
	 * The {@code sample.chaos.consumer} of a {@link Fault#CHAOS} row whose halts are in another
	 * consumer than the marketing agent's, else {@code null}.
	 */
	public String chaosConsumer() {
		return (this == CHILD_KILL_PARENT_FANOUT) ? RowRun.CAMPAIGN_CONSUMER : null;
	}

	/**
	 * Whether the marketing agent runs under a limit in this row and {@link LimitRows} injects and
	 * judges it.
	 */
	public boolean limits() {
		return this.fault == Fault.LIMIT_KILL || this.fault == Fault.LIMIT_RATE;
	}

	/** The row's text in the matrix. */
	public String label() {
		return this.label;
	}

	/** How the fault is injected. */
	public Fault fault() {
		return this.fault;
	}

	/**
	 * The {@code sample.chaos.halt-at} value of a {@link Fault#CHAOS}, {@link Fault#ZOMBIE_AT_POINT} or
	 * {@link Fault#STORE_DOWN_SIGTERM} row, else {@code null}.
	 */
	public String chaosPoint() {
		return this.chaosPoint;
	}

	/** The consumer's {@code on-abandoned} policy in this row. */
	public String onAbandoned() {
		return this.onAbandoned;
	}

	/** The {@code sample.chaos.step} of a row halting in or after a durable step, else {@code null}. */
	public String chaosStep() {
		return this.chaosStep;
	}

	/**
	 * The store this row runs on, whatever the suite's {@code --store}; {@code null} when it runs on
	 * the suite's store.
	 */
	public String store() {
		return this.store;
	}

	/** Whether the row puts one consumer JVM in its own network namespace. */
	public boolean partitions() {
		return this.fault == Fault.PARTITION || this.fault == Fault.STORE_PARTITION;
	}

	/** The consumers' {@code sample.commit-probe}: whether the commit step has its probe. */
	public boolean commitProbe() {
		return this.commitProbe;
	}

	/**
	 * Whether the row can run the handler of a task twice by design (more than one ledger line): a
	 * process died after the handler started its steps and its claim is retried; steps already
	 * journaled replay, the ledger line written after the last step does not. Every other row must
	 * show none.
	 */
	public boolean mayDuplicate() {
		return this == KILL_HANDLED_RETRY || this == KILL_HANDLED_DEAD_LETTER || this == ZOMBIE_RETRY
				|| this == ZOMBIE_HANDLED_RETRY || this == KILL_IN_COMMIT || this == KILL_IN_COMMIT_NO_PROBE
				|| this == KILL_IN_PUBLISH || this == PARTITION_RETRY || this == SIGTERM_IN_COMMIT
				|| this == KILL_IN_COMMIT_FEW_DELIVERIES || this == WAIT_KILL_WHILE_WAITING
				|| this == WAIT_KILL_AFTER_SIGNAL || killsOtherConsumers() || limits();
	}

	/**
	 * Whether the row can run the handler of a task twice by design with consumers of the given
	 * mode: pipelined, a consumer JVM killed, paused or cut off may also hold a message whose
	 * handler returned while its completion record was being written on a completion thread (the
	 * HANDLED window of a second message, as with concurrency above 1); its steps replay.
	 * @param pipelined whether the consumers run {@code exactlyonce.listener.pipelined}
	 * @return whether a handler may run twice, at most once per injection
	 */
	public boolean mayDuplicate(boolean pipelined) {
		return mayDuplicate() || (pipelined && mayRepeatDeploy());
	}

	/**
	 * Whether the row can commit a task twice by design: killed between the git commit and its DONE
	 * record, with no probe to find the commit (at most once per injection).
	 */
	public boolean mayRepeatCommit() {
		return this == KILL_IN_COMMIT_NO_PROBE;
	}

	/**
	 * Whether the row can run the DevOps agent twice for one deploy task: it runs in the consumer
	 * JVMs the row kills, pauses or cuts off, and its handler (one side effect, no steps, no probe)
	 * has the HANDLED window of its own; a partitioned one keeps running and appends its deploy.
	 */
	public boolean mayRepeatDeploy() {
		return this.fault == Fault.CHAOS || this.fault == Fault.ZOMBIE || this.fault == Fault.ZOMBIE_AT_POINT
				|| this.fault == Fault.PARTITION || this.fault == Fault.WAIT_KILL || limits();
	}

	/**
	 * Whether the row can call the model twice for a task (and so commit a later draft): a zombie
	 * paused (or cut off) inside the draft step past its lease, whose step is run again by another
	 * instance, or a JVM killed at a moment of the driver's choosing ({@link Fault#WAIT_KILL}) after
	 * its model call and before the step's DONE record, or halted while it served a signal
	 * ({@link #WAIT_KILL_AFTER_SIGNAL}: another handler of that JVM may be anywhere).
	 */
	public boolean mayRepeatModelCall() {
		return this.fault == Fault.ZOMBIE || this.fault == Fault.PARTITION || this.fault == Fault.WAIT_KILL
				|| this == CHILD_KILL_PARENT_FANOUT || this == WAIT_KILL_AFTER_SIGNAL || limits();
	}

	/**
	 * Whether the row's chaos point halts a JVM in which the other agents' consumers are at a moment
	 * of their own: the CEO agent's ledger line written and its completion record not (a campaign's
	 * handler re-run), and, where the halt is in the CEO agent's thread, a marketing post's model call
	 * made and its step not journaled (a second model call), as in {@link Fault#WAIT_KILL}.
	 */
	private boolean killsOtherConsumers() {
		return this == CHILD_KILL_PARENT_FANOUT || this == CHILD_KILL_AFTER_COMPLETION;
	}

	/** How a fault is injected. */
	public enum Fault {

		/** {@code sample.chaos.halt-at} in the consumer JVMs: {@code Runtime.halt} at a pipeline point. */
		CHAOS,

		/** {@code kill -STOP} of a consumer JVM past lease and ack wait, then {@code kill -CONT}. */
		ZOMBIE,

		/**
		 * {@code kill -STOP} of a consumer JVM as soon as a delivery reached the row's chaos point
		 * ({@code sample.chaos.stall} holds it there), past lease and ack wait, then {@code kill -CONT}.
		 */
		ZOMBIE_AT_POINT,

		/** {@code kill -9} of the publisher JVM, restarted a few tasks back. */
		PUBLISHER,

		/** {@code kill -9} of the nats-server, restarted on the same port and store directory. */
		NATS_RESTART,

		/** {@code kill -9} of one node of a 3-node cluster, restarted on the same ports and directory. */
		CLUSTER_NODE_KILL,

		/**
		 * {@code libfaketime} preloaded into one consumer JVM, its wall clock ahead by
		 * {@link RowRun#CLOCK_SKEW}; every task published a second time once the stream's (shortened)
		 * duplicate window passed, so two instances whose clocks disagree claim one key at once.
		 */
		CLOCK_SKEW,

		/** {@code kill -9} of the store's own server, restarted on the same port and directory. */
		STORE_RESTART,

		/** {@code kill -STOP} of the store's own server past request timeout, lease and ack wait, then CONT. */
		STORE_STALL,

		/**
		 * {@code kill -STOP} of the store's own server as soon as a delivery reached the row's chaos
		 * point ({@code sample.chaos.stall} holds it there), then SIGTERM of that consumer JVM;
		 * {@code kill -9} and restart of the server once the JVM exited.
		 */
		STORE_DOWN_SIGTERM,

		/** One consumer JVM's veth link down past lease and ack wait, then up (it is cut off from everything). */
		PARTITION,

		/** A blackhole route to the store's address in one consumer JVM's namespace, then removed. */
		STORE_PARTITION,

		/** {@code kill -9} of a consumer JVM while tasks wait at a durable wait, restarted at once. */
		WAIT_KILL,

		/** {@code kill -9} of a consumer JVM while it holds a slot of a concurrency limit, restarted at once. */
		LIMIT_KILL,

		/** {@code kill -9} of every consumer JVM, later of the nats-server, under a rate limit's overload. */
		LIMIT_RATE

	}

}
