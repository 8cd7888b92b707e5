package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

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
 * task takes a slot of a key by compare-and-set on the key's entry, or joins its queue and suspends
 * like a durable sleep until the first slot's lease ends (or the next token of the rate window); a
 * released slot resumes the head of the queue at once. A slot whose lease ended is checked against
 * its task's record: kept (to the renewed lease) while the claim that took it is live, freed
 * otherwise, so a holder killed mid-task frees its slot within one lease.
 */
public final class NatsTaskLimits implements TaskLimits {

	private static final Log logger = LogFactory.getLog(NatsTaskLimits.class);

	/** How long free slots are kept for the waiters ahead of a task before it looks again. */
	static final Duration HEAD_START = Duration.ofSeconds(2);

	/** How long past its deadline a waiter keeps its place when it does not come back. */
	static final Duration GRACE = Duration.ofMinutes(1);

	private static final int ROUNDS = 200;

	/**
	 * The most waiters a task that starts with room left wakes: the heads a lost wake or a late look
	 * left waiting (a released slot wakes its heads, a rate's waiters look when their token is due), each
	 * of which wakes the next when it starts, rather than a whole window's tokens' worth on one thread.
	 */
	static final int WOKEN_BY_A_START = 4;

	/** How many locks the keys' entries share within this instance. */
	private static final int STRIPES = 64;

	/** How long one read of the limits' usage serves health, the meters and the dashboard. */
	static final Duration USAGE_MAX_AGE = Duration.ofSeconds(5);

	private final Map<String, LimitDefinition> limits;

	private final LimitEntries entries;

	private final IdempotencyStore store;

	private final StoreClock clock;

	private final TaskWaker waker;

	private final LimitsMeters meters;

	private final Lock[] stripes = new Lock[STRIPES];

	private final UsageSnapshots usage = new UsageSnapshots(this::readUsage, USAGE_MAX_AGE);

	NatsTaskLimits(Map<String, LimitDefinition> limits, LimitEntries entries, IdempotencyStore store, StoreClock clock,
			TaskWaker waker, LimitsMeters meters) {
		this.limits = new LinkedHashMap<>(limits);
		this.entries = entries;
		this.store = store;
		this.clock = clock;
		this.waker = waker;
		this.meters = meters;
		Arrays.setAll(this.stripes, (stripe) -> new ReentrantLock());
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
		Lock lock = stripe(limit, key);
		Taken taken;
		lock.lock();
		try {
			taken = takeOrQueue(limit, key, task, lease);
		}
		finally {
			lock.unlock();
		}
		if (taken.next().isEmpty()) {
			wakeHeads(limit, taken.written(), WOKEN_BY_A_START);
		}
		return taken.next();
	}

	private Taken takeOrQueue(LimitDefinition limit, String key, WaitingTask task, Duration lease) {
		for (int round = 0; round < ROUNDS; round++) {
			LimitEntries.Read read = this.entries.read(limit.name(), key);
			LimitState state = read.state();
			Instant now = this.clock.latest();
			tidy(limit, state, now);
			if (state.mayStart(limit, task.storeKey())) {
				Instant since = Optional.ofNullable(waiterSince(state, task.storeKey())).orElse(now);
				state.start(limit, task.storeKey(), task.token(), now.plus(lease), now);
				if (this.entries.write(read, state)) {
					this.meters.started(limit.name(), Duration.between(since, now));
					return new Taken(Optional.empty(), state);
				}
			}
			else {
				if (state.place(task.storeKey()) < 0 && state.queue().size() >= limit.maxWaiting()) {
					throw new LimitQueueFullException(limit.describe() + ": the queue of key entry '" + read.entryKey()
							+ "' holds " + state.queue().size() + " tasks, its most (exactlyonce.limits." + limit.name()
							+ ".max-waiting=" + limit.maxWaiting() + "), so the task at " + task.describe()
							+ " was not queued. Fix: fewer tasks waiting on one key (a finer limit key, or publish at the "
							+ "pace the limit allows), or raise exactlyonce.limits." + limit.name() + ".max-waiting "
							+ "together with the NATS server's max_payload (a key's queue is one KV value, about 110 "
							+ "bytes per waiter)");
				}
				int place = state.place(task.storeKey());
				boolean arrival = place < 0;
				Instant next = state.nextLook(limit, now, HEAD_START, lease, arrival ? state.queue().size() : place);
				state.enqueue(task.storeKey(), now, next.plus(lease).plus(GRACE));
				if (arrival ? this.entries.writeArrival(read, state, limit, task.describe())
						: this.entries.write(read, state)) {
					return new Taken(Optional.of(next), state);
				}
			}
		}
		throw new StoreUnavailableException("The state of " + limit.describe() + " for the task at " + task.describe()
				+ " changed " + ROUNDS + " times while it was being written: the attempt is retried", null);
	}

	/** Gives back the task's slot of the key, and resumes the waiters whose turn it is. */
	void give(LimitDefinition limit, String key, WaitingTask task) {
		if (limit.concurrency() == 0) {
			return;
		}
		Lock lock = stripe(limit, key);
		LimitState written = null;
		lock.lock();
		try {
			written = release(limit, key, task);
		}
		finally {
			lock.unlock();
		}
		if (written != null) {
			wakeHeads(limit, written, Integer.MAX_VALUE);
		}
	}

	/** Removes the task's slot from the key's entry; answers what was written, or {@code null}. */
	private LimitState release(LimitDefinition limit, String key, WaitingTask task) {
		for (int round = 0; round < ROUNDS; round++) {
			LimitEntries.Read read = this.entries.read(limit.name(), key);
			LimitState state = read.state();
			if (!state.release(task.storeKey(), task.token())) {
				return null;
			}
			tidy(limit, state, this.clock.latest());
			if (this.entries.write(read, state)) {
				return state;
			}
		}
		logger.warn("The slot of " + limit.describe() + " held by the task at " + task.describe() + " was not given "
				+ "back (its entry kept changing): it frees when its lease ends");
		return null;
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

	private static Instant waiterSince(LimitState state, String task) {
		int place = state.place(task);
		return (place >= 0) ? state.queue().get(place).since() : null;
	}

	/**
	 * The lock this instance takes around a change of a key's entry: its threads then change an entry one
	 * at a time instead of racing each other's compare-and-set (with many workers on one key, each losing
	 * round re-reads a value that holds the whole queue). Other instances still race by compare-and-set.
	 */
	private Lock stripe(LimitDefinition limit, String key) {
		return this.stripes[Math.floorMod(Objects.hash(limit.name(), key), STRIPES)];
	}

	/**
	 * A take: when the task should look again (empty when it runs), and the state written.
	 * @param next when to look again, or empty
	 * @param written the key's state as written
	 */
	private record Taken(Optional<Instant> next, LimitState written) {
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
