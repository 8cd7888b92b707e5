package dev.exactlyonce.limits;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import dev.exactlyonce.limits.spi.LimitQueueFullException;
import dev.exactlyonce.store.StoreClock;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The changes this instance's threads make to the keys' entries, written together: a thread queues its
 * change and, holding the lock of the key's stripe, applies every change queued meanwhile in one read and
 * one compare-and-set per key (again, from a fresh read, when another instance wrote in between). Under a
 * burst, the 64 workers of a consumer arriving at one key cost a few writes of its entry, which holds the
 * whole queue, instead of 64 one after the other; and a holder giving back its slot waits behind one batch,
 * not behind every arrival.
 */
final class EntryBatches {

	/** How many times a key's changes are applied again after another instance wrote the entry. */
	private static final int ROUNDS = 200;

	/** How many locks the keys' entries share within this instance. */
	private static final int STRIPES = 64;

	/** The most changes one batch applies. */
	private static final int MOST_PER_BATCH = 256;

	private final LimitEntries entries;

	private final StoreClock clock;

	private final Tidy tidy;

	private final Wakes wakes;

	private final Stripe[] stripes = new Stripe[STRIPES];

	EntryBatches(LimitEntries entries, StoreClock clock, Tidy tidy, Wakes wakes) {
		this.entries = entries;
		this.clock = clock;
		this.tidy = tidy;
		this.wakes = wakes;
		Arrays.setAll(this.stripes, (stripe) -> new Stripe());
	}

	/**
	 * Applies a change to a key's entry, together with the changes other threads queued meanwhile (batch
	 * after batch until this thread's own is written), and resumes the waiters whose turn came when this
	 * thread wrote the batch. The caller clears the thread's interrupt flag (the pipeline's calls run
	 * {@code Uninterrupted}): an interrupted writer would fail the other threads' changes of its batch.
	 * @param limit the limit
	 * @param key the key within it
	 * @param change the change, applied to the entry's state (again on a fresh read when a write lost a race)
	 * @return the change's outcome, once written
	 * @throws LimitQueueFullException when the change refused itself
	 * @throws StoreUnavailableException when NATS did not answer or the entry kept changing
	 */
	<T> T apply(LimitDefinition limit, String key, Change<T> change) {
		Pending<T> pending = new Pending<>(limit, key, change);
		Stripe stripe = this.stripes[Math.floorMod(Objects.hash(limit.name(), key), STRIPES)];
		stripe.queue.add(pending);
		List<Written> written = new ArrayList<>();
		stripe.lock.lock();
		try {
			while (!pending.done) {
				written.addAll(writeQueued(stripe.queue));
			}
		}
		finally {
			stripe.lock.unlock();
		}
		for (Written batch : written) {
			this.wakes.wakeHeads(batch.limit(), batch.state(), batch.wakes());
		}
		return pending.outcome();
	}

	private List<Written> writeQueued(Queue<Pending<?>> queue) {
		Map<List<String>, List<Pending<?>>> byKey = new LinkedHashMap<>();
		for (Pending<?> pending = queue.poll(); pending != null; pending = queue.poll()) {
			byKey.computeIfAbsent(List.of(pending.limit.name(), pending.key), (entry) -> new ArrayList<>()).add(pending);
			if (byKey.values().stream().mapToInt(List::size).sum() >= MOST_PER_BATCH) {
				break;
			}
		}
		List<Written> written = new ArrayList<>();
		for (List<Pending<?>> batch : byKey.values()) {
			try {
				Written one = write(batch);
				if (one != null) {
					written.add(one);
				}
			}
			catch (RuntimeException | Error ex) {
				batch.forEach((pending) -> pending.fail(ex));
			}
			finally {
				batch.forEach(Pending::failIfOpen);
			}
		}
		return written;
	}

	/** Writes one key's batch; answers what to wake, or {@code null} when nothing was written. */
	private Written write(List<Pending<?>> batch) {
		LimitDefinition limit = batch.get(0).limit;
		String key = batch.get(0).key;
		for (int round = 0; round < ROUNDS; round++) {
			LimitEntries.Read read = this.entries.read(limit.name(), key);
			LimitState state = read.state();
			Instant now = this.clock.latest();
			this.tidy.tidy(limit, state, now);
			LimitEntries.Room room = this.entries.room(read, state, limit);
			boolean changed = false;
			int wakes = 0;
			for (Pending<?> pending : batch) {
				Applied<?> applied = pending.applyTo(state, now, room);
				changed |= (applied != null) && applied.changed();
				wakes = Math.max(wakes, (applied != null) ? applied.wakes() : 0);
			}
			if (!changed) {
				batch.forEach(Pending::settle);
				return null;
			}
			if (this.entries.write(read, state)) {
				batch.forEach(Pending::settle);
				return new Written(limit, state, wakes);
			}
		}
		throw new StoreUnavailableException("The state of " + limit.describe() + " for key entry '"
				+ LimitEntries.entryKey(limit.name(), key) + "' changed " + ROUNDS + " times while it was being "
				+ "written: the attempt is retried", null);
	}

	/**
	 * A change of a key's state.
	 * @param <T> its outcome
	 */
	@FunctionalInterface
	interface Change<T> {

		/**
		 * Applies the change to the key's state as read now (tidied).
		 * @param state the state, to change
		 * @param now the server's time (an upper bound)
		 * @param room what an arrival may still add to the entry
		 * @return the outcome: whether the state changed, and how many waiters to wake once it is written
		 * @throws LimitQueueFullException when the change refuses itself (the state
		 * unchanged): the other changes of the batch are written
		 */
		Applied<T> apply(LimitState state, Instant now, LimitEntries.Room room);

	}

	/**
	 * A change's outcome.
	 * @param value what the caller gets
	 * @param changed whether the state changed
	 * @param wakes the most waiters to resume after the write (the heads whose turn it is)
	 */
	record Applied<T>(T value, boolean changed, int wakes) {
	}

	/** Forgets what is past in a key's state and frees the slots whose claim is no longer live. */
	@FunctionalInterface
	interface Tidy {

		void tidy(LimitDefinition limit, LimitState state, Instant now);

	}

	/** Resumes the first waiters of a key whose turn it is. */
	@FunctionalInterface
	interface Wakes {

		void wakeHeads(LimitDefinition limit, LimitState state, int most);

	}

	private record Written(LimitDefinition limit, LimitState state, int wakes) {
	}

	/** The changes queued for the keys of one stripe, and its lock. */
	private static final class Stripe {

		private final ReentrantLock lock = new ReentrantLock();

		private final Queue<Pending<?>> queue = new ConcurrentLinkedQueue<>();

	}

	/** A queued change and, once its batch is written or failed, its outcome. */
	private static final class Pending<T> {

		private final LimitDefinition limit;

		private final String key;

		private final Change<T> change;

		private Applied<T> applied;

		private RuntimeException refused;

		private Throwable failed;

		private volatile boolean done;

		Pending(LimitDefinition limit, String key, Change<T> change) {
			this.limit = limit;
			this.key = key;
			this.change = change;
		}

		Applied<T> applyTo(LimitState state, Instant now, LimitEntries.Room room) {
			try {
				this.applied = this.change.apply(state, now, room);
				this.refused = null;
				return this.applied;
			}
			catch (LimitQueueFullException ex) {
				this.applied = null;
				this.refused = ex;
				return null;
			}
		}

		void settle() {
			this.done = true;
		}

		void fail(Throwable ex) {
			this.failed = ex;
			this.done = true;
		}

		void failIfOpen() {
			if (!this.done) {
				fail(new IllegalStateException("The change of the limits' entry was not applied"));
			}
		}

		T outcome() {
			if (this.failed instanceof RuntimeException ex) {
				throw ex;
			}
			if (this.failed instanceof Error error) {
				throw error;
			}
			if (this.refused != null) {
				throw this.refused;
			}
			return this.applied.value();
		}

	}

}
