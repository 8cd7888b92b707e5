package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Sizes and timings of one suite run. The timings keep every start-up check of the starter
 * satisfied: working-ack interval below the ack wait, lease at least twice the interval,
 * no backoff (so {@code max-deliver} trivially exceeds its entries) and the default 72 h
 * completed TTL far above {@code ack-wait x max-deliver}; and the request timeout below lease and
 * ack wait.
 *
 * @param name the profile's name
 * @param consumers consumer JVMs per row
 * @param injectionsPerRow injections to reach in each row (more may land while JVMs halt in parallel)
 * @param tasksPerRow tasks published in each row
 * @param chaosProbability chance that a delivery reaching the chaos point halts its JVM
 * @param publisherKillsPerRow publisher kills in rows whose fault is something else
 * @param workDuration the marketing agent's simulated work
 * @param zombieWorkDuration the simulated work in zombie rows: long enough that a pause lands mid-handler
 * @param ackWait the consumer's ack wait
 * @param workingAckInterval working acks and lease renewals
 * @param lease the claim lease
 * @param maxDeliver the consumer's max deliveries
 * @param requestTimeout the consumers' {@code exactlyonce.nats.request-timeout}: below the lease and the ack
 * wait, so a store call stuck in a server restart fails before the claim could be taken over
 * @param rowTimeout how long one row may take before it fails
 * @param storeType {@code exactlyonce.store.type} of the consumers
 * @param pipelined {@code exactlyonce.listener.pipelined} of the consumers
 * @param rows the rows to run
 */
public record SuiteProfile(String name, int consumers, int injectionsPerRow, int tasksPerRow, double chaosProbability,
		int publisherKillsPerRow, Duration workDuration, Duration zombieWorkDuration, Duration ackWait,
		Duration workingAckInterval, Duration lease, int maxDeliver, Duration requestTimeout, Duration rowTimeout, String storeType,
		boolean pipelined, List<FaultRow> rows) {

	/**
	 * Rows the short version leaves out to stay short; {@code --rows} or the long version run them:
	 * the Firestore stall (about 100 s: the emulator keeps a key locked by a transaction its client
	 * gave up on for about a minute), the dead-letter variant of the partition row, the durable
	 * waits' rows (their consumers run the servlet stack for the signals), the child tasks' rows and the
	 * limits' rows (the rate row runs for minutes by design).
	 */
	static final Set<FaultRow> NOT_IN_SHORT = EnumSet.of(FaultRow.FIRESTORE_STALL, FaultRow.PARTITION_DEAD_LETTER,
			FaultRow.WAIT_KILL_BEFORE_ACK, FaultRow.WAIT_KILL_WHILE_WAITING, FaultRow.WAIT_KILL_AFTER_SIGNAL,
			FaultRow.WAIT_NATS_RESTART, FaultRow.WAIT_STORE_OUTAGE, FaultRow.CHILD_KILL_PARENT_FANOUT,
			FaultRow.CHILD_KILL_AFTER_COMPLETION, FaultRow.CHILD_NATS_RESTART, FaultRow.LIMIT_KILL_HOLDERS,
			FaultRow.LIMIT_RATE_10MIN);

	/**
	 * A few hundred tasks, a few injections per row: the CI version. {@code CLUSTER_NODE_KILL} is
	 * left out on a nats-server older than {@value ClusterSupport#SAFE_VERSION} (see
	 * {@link ClusterSupport#whyLeftOut()}).
	 */
	public static SuiteProfile quick() {
		boolean clusterRow = ClusterSupport.whyLeftOut() == null;
		return new SuiteProfile("short", 2, 3, 30, 0.5, 1, Duration.ofMillis(150), Duration.ofMillis(600),
				Duration.ofSeconds(3), Duration.ofMillis(750), Duration.ofSeconds(2), 10, Duration.ofSeconds(1),
				Duration.ofSeconds(120), "nats-kv", false,
				Arrays.stream(FaultRow.values())
					.filter((row) -> !NOT_IN_SHORT.contains(row))
					.filter((row) -> clusterRow || row != FaultRow.CLUSTER_NODE_KILL)
					.toList());
	}

	/** Thousands of tasks, at least 300 injections per row. */
	public static SuiteProfile thorough() {
		return new SuiteProfile("long", 3, 300, 900, 0.5, 3, Duration.ofMillis(150), Duration.ofMillis(600),
				Duration.ofSeconds(3), Duration.ofMillis(750), Duration.ofSeconds(2), 20, Duration.ofSeconds(1),
				Duration.ofMinutes(40), "nats-kv", false,
				List.of(FaultRow.values()));
	}

	/**
	 * This profile with other rows.
	 * @param selected the rows
	 * @return a copy
	 */
	public SuiteProfile withRows(List<FaultRow> selected) {
		return new SuiteProfile(this.name, this.consumers, this.injectionsPerRow, this.tasksPerRow,
				this.chaosProbability, this.publisherKillsPerRow, this.workDuration, this.zombieWorkDuration,
				this.ackWait, this.workingAckInterval, this.lease, this.maxDeliver, this.requestTimeout,
				this.rowTimeout, this.storeType, this.pipelined, selected);
	}

	/**
	 * This profile with another store type.
	 * @param type {@code exactlyonce.store.type}
	 * @return a copy
	 */
	public SuiteProfile withStoreType(String type) {
		return new SuiteProfile(this.name, this.consumers, this.injectionsPerRow, this.tasksPerRow,
				this.chaosProbability, this.publisherKillsPerRow, this.workDuration, this.zombieWorkDuration,
				this.ackWait, this.workingAckInterval, this.lease, this.maxDeliver, this.requestTimeout,
				this.rowTimeout, type, this.pipelined, this.rows);
	}

	/**
	 * This profile with other sizes.
	 * @param injections injections per row
	 * @param tasks tasks per row
	 * @return a copy
	 */
	public SuiteProfile withSizes(int injections, int tasks) {
		return new SuiteProfile(this.name, this.consumers, injections, tasks, this.chaosProbability,
				this.publisherKillsPerRow, this.workDuration, this.zombieWorkDuration, this.ackWait,
				this.workingAckInterval, this.lease, this.maxDeliver, this.requestTimeout, this.rowTimeout,
				this.storeType, this.pipelined, this.rows);
	}

	/**
	 * This profile with consumers that write completion records off their handler threads.
	 * @return a copy
	 */
	public SuiteProfile pipelinedCopy() {
		return new SuiteProfile(this.name, this.consumers, this.injectionsPerRow, this.tasksPerRow,
				this.chaosProbability, this.publisherKillsPerRow, this.workDuration, this.zombieWorkDuration,
				this.ackWait, this.workingAckInterval, this.lease, this.maxDeliver, this.requestTimeout,
				this.rowTimeout, this.storeType, true, this.rows);
	}

	/** How long a zombie stays stopped: past the ack wait (redelivery) and so past the shorter lease. */
	public Duration zombiePause() {
		return this.ackWait.plus(this.lease.compareTo(this.ackWait) > 0 ? this.lease : Duration.ZERO)
			.plusMillis(1500);
	}

}
