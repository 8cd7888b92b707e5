package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.limits.spi.LimitQueueFullException;
import dev.exactlyonce.limits.spi.LimitSession;
import dev.exactlyonce.limits.spi.TaskLimits;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreClock;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Limits kept in a NATS KV bucket, for every idempotency store, judged on the NATS server's clock. A
 * task takes a slot of a key by compare-and-set on the key's entry (batched with this instance's other
 * changes of it: {@link EntryBatches}), or joins its queue and suspends like a durable sleep until the
 * first slot's lease ends or the token it would get is due ({@link LimitState#nextLook}); a released slot
 * resumes the head of the queue at once. A slot whose lease ended is checked against
 * its task's record: kept (to the renewed lease) while the claim that took it is live, freed
 * otherwise, so a holder killed mid-task frees its slot within one lease.
 */
public final class NatsTaskLimits implements TaskLimits {

	private static final Log logger = LogFactory.getLog(NatsTaskLimits.class);

	/** How long free slots are kept for the waiters ahead of a task before it looks again. */
	static final Duration HEAD_START = Duration.ofSeconds(2);

	/** How long past its deadline a waiter keeps its place when it does not come back. */
	static final Duration GRACE = Duration.ofMinutes(1);

	/**
	 * The most waiters a task that starts with room left wakes: the heads a lost wake or a late look
	 * left waiting (a released slot wakes its heads, a rate's waiters look when their token is due), each
	 * of which wakes the next when it starts, rather than a whole window's tokens' worth on one thread.
	 */
	static final int WOKEN_BY_A_START = 4;

	/** How long one read of the limits' usage serves health, the meters and the dashboard. */
	static final Duration USAGE_MAX_AGE = Duration.ofSeconds(5);

	private final Map<String, LimitDefinition> limits;

	private final LimitEntries entries;

	private final IdempotencyStore store;

	private final StoreClock clock;

	private final TaskWaker waker;

	private final LimitsMeters meters;

	private final EntryBatches batches;

	private final UsageSnapshots usage = new UsageSnapshots(this::readUsage, USAGE_MAX_AGE);

	NatsTaskLimits(Map<String, LimitDefinition> limits, LimitEntries entries, IdempotencyStore store, StoreClock clock,
			TaskWaker waker, LimitsMeters meters) {
		this.limits = new LinkedHashMap<>(limits);
		this.entries = entries;
		this.store = store;
		this.clock = clock;
		this.waker = waker;
		this.meters = meters;
		this.batches = new EntryBatches(entries, clock, this::tidy, this::wakeHeads);
	}

	@Override
	public LimitSession open(WaitingTask task, Duration lease) {
		return new TaskLimitSession(task, lease, this);
	}

	@Override
	public boolean declares(String name) {
		return this.limits.containsKey(name);
	}

	@Override
	public Set<String> declared() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(this.limits.keySet()));
	}

	/**
	 * How much of each limit is in use, read at most once per 5 seconds (a read scans the limits' keys).
	 * @return the usage of each declared limit, in declaration order
	 * @throws StoreUnavailableException when NATS did not answer
	 */
	public List<LimitUsage> usage() {
		return this.usage.current();
	}

	/**
	 * The usage read last, without waiting for NATS (for meters): a new read starts in the background when it
	 * is older than 5 seconds.
	 * @return the usage of each declared limit, or empty before the first read and when the last one failed
	 */
	public Optional<List<LimitUsage>> lastUsage() {
		return this.usage.last();
	}

	private List<LimitUsage> readUsage() {
		Instant now = this.clock.latest();
		return this.limits.values().stream().map((limit) -> this.entries.usage(limit, now)).toList();
	}

	/**
	 * The declared limit of a name.
	 * @throws IllegalArgumentException when it is not declared
	 */
	LimitDefinition limit(String name, WaitingTask task) {
		LimitDefinition limit = this.limits.get(name);
		if (limit == null) {
			throw new IllegalArgumentException("Limit '" + name + "' used by the task at " + task.describe()
					+ " is not declared: add exactlyonce.limits." + name + ".concurrency or .rate (declared: "
					+ this.limits.keySet() + ")");
		}
		return limit;
	}

	/**
	 * Takes a slot and a token of the key for the task, or queues it.
	 * @return empty when the task may run, else when it should look again
	 * @throws LimitQueueFullException when the key's queue is full: the task is not queued
	 */
	Optional<Instant> take(LimitDefinition limit, String key, WaitingTask task, Duration lease) {
		Taken taken = this.batches.apply(limit, key, (state, now, room) -> takeOrQueue(limit, state, now, room, task,
				lease));
		if (taken.next().isEmpty()) {
			this.meters.started(limit.name(), taken.waited());
		}
		return taken.next();
	}

	private static EntryBatches.Applied<Taken> takeOrQueue(LimitDefinition limit, LimitState state, Instant now,
			LimitEntries.Room room, WaitingTask task, Duration lease) {
		int place = state.place(task.storeKey());
		if (state.mayStart(limit, task.storeKey())) {
			Instant since = (place >= 0) ? state.queue().get(place).since() : now;
			state.start(limit, task.storeKey(), task.token(), now.plus(lease), now);
			room.started((limit.concurrency() > 0) ? state.holders().get(state.holders().size() - 1) : null,
					(limit.rate() > 0) ? now : null);
			return new EntryBatches.Applied<>(new Taken(Optional.empty(), Duration.between(since, now)), true,
					WOKEN_BY_A_START);
		}
		if (place < 0 && state.queue().size() >= limit.maxWaiting()) {
			throw new LimitQueueFullException(limit.describe() + ": the queue of key entry '"
					+ LimitEntries.entryKey(limit.name(), state.key()) + "' holds "
					+ state.queue().size() + " tasks, its most (exactlyonce.limits." + limit.name() + ".max-waiting="
					+ limit.maxWaiting() + "), so the task at " + task.describe() + " was not queued. Fix: fewer tasks "
					+ "waiting on one key (a finer limit key, or publish at the pace the limit allows), or raise "
					+ "exactlyonce.limits." + limit.name() + ".max-waiting together with the NATS server's max_payload "
					+ "(a key's queue is one KV value, about 110 bytes per waiter)");
		}
		Instant next = state.nextLook(limit, now, HEAD_START, (place < 0) ? state.queue().size() : place);
		LimitState.Waiter waiter = new LimitState.Waiter(task.storeKey(), now, next.plus(lease).plus(GRACE));
		if (place < 0) {
			room.admit(state, waiter, task.describe());
		}
		state.enqueue(waiter.task(), waiter.since(), waiter.until());
		return new EntryBatches.Applied<>(new Taken(Optional.of(next), Duration.ZERO), true, 0);
	}

	/** Gives back the task's slot of the key, and resumes the waiters whose turn it is. */
	void give(LimitDefinition limit, String key, WaitingTask task) {
		if (limit.concurrency() == 0) {
			return;
		}
		this.batches.apply(limit, key, (state, now, room) -> new EntryBatches.Applied<>(null,
				state.release(task.storeKey(), task.token()), Integer.MAX_VALUE));
	}

	/** Resumes the task, suspended while a slot freed, when its turn has come (the releaser found it running). */
	void lookAgain(LimitDefinition limit, String key, WaitingTask task) {
		LimitState state = this.entries.read(limit.name(), key).state();
		tidy(limit, state, this.clock.latest());
		if (state.mayStart(limit, task.storeKey())) {
			wake(limit, task.storeKey());
		}
	}

	private void wakeHeads(LimitDefinition limit, LimitState state, int most) {
		if (most == 0) {
			return;
		}
		for (LimitState.Waiter waiter : state.heads(Math.min(most, state.free(limit)))) {
			wake(limit, waiter.task());
		}
	}

	private void wake(LimitDefinition limit, String storeKey) {
		try {
			this.waker.wake(storeKey, limit.describe() + " has room");
		}
		catch (RuntimeException ex) {
			logger.debug("Task '" + storeKey + "' waiting for " + limit.describe() + " not resumed now; its ticket "
					+ "resumes it: " + ex.getMessage());
		}
	}

	/** Forgets past starts and waiters gone, and frees the slots whose claim is no longer live. */
	private void tidy(LimitDefinition limit, LimitState state, Instant now) {
		state.forgetPast(limit, now, this.clock.earliest());
		List<LimitState.Holder> kept = new ArrayList<>();
		for (LimitState.Holder holder : state.holders()) {
			if (!holder.until().isBefore(now)) {
				kept.add(holder);
				continue;
			}
			IdempotencyRecord record = this.store.findWithoutJournal(holder.task()).orElse(null);
			if (record != null && record.state() == RecordState.IN_PROGRESS && holder.token().equals(record.token())
					&& record.leaseUntil().isAfter(now)) {
				kept.add(new LimitState.Holder(holder.task(), holder.token(), record.leaseUntil()));
			}
			else {
				logger.info("The slot of " + limit.describe() + " held by task '" + holder.task() + "' is freed: its "
						+ "lease ended " + holder.until() + " and the attempt that took it no longer runs");
			}
		}
		state.holders().clear();
		state.holders().addAll(kept);
	}

	/**
	 * A take: when the task should look again (empty when it runs), and how long it waited.
	 * @param next when to look again, or empty
	 * @param waited how long it waited in the queue (zero when it did not start)
	 */
	private record Taken(Optional<Instant> next, Duration waited) {
	}

	/** Resumes a task suspended at a limit. */
	@FunctionalInterface
	interface TaskWaker {

		/**
		 * Resumes the task if it is suspended at a limit.
		 * @param storeKey the task's store key
		 * @param reason what freed up, for its audit
		 */
		void wake(String storeKey, String reason);

	}

}
