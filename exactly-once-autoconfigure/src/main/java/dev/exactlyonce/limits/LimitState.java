package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one key of a limit, as its KV entry holds it (JSON, rewritten by compare-and-set): the
 * tasks holding a slot (each until its lease ends, on the server's clock), the starts within the rate
 * window, and the tasks waiting, in arrival order; and the key as the listener or step gave it (the
 * entry's name is its digest), for health and the dashboard.
 *
 * @param key the key within the limit, or {@code null} in an entry written before keys were kept
 * @param holders the tasks holding a slot
 * @param starts when each task started within the current rate window
 * @param queue the tasks waiting, first come first
 */
record LimitState(String key, List<Holder> holders, List<Instant> starts, List<Waiter> queue) {

	/** The least a waiting task sleeps before it looks again. */
	private static final Duration SOONEST = Duration.ofMillis(100);

	/**
	 * A task holding a slot.
	 * @param task its store key
	 * @param token the fencing token of the attempt that holds it
	 * @param until when the slot is free unless the task's claim is still live
	 */
	record Holder(String task, String token, Instant until) {
	}

	/**
	 * A task waiting for its turn.
	 * @param task its store key
	 * @param since when it arrived
	 * @param until when it loses its place unless it comes back (its deadline plus a grace)
	 */
	record Waiter(String task, Instant since, Instant until) {
	}

	/** The state of a key nobody used yet. */
	static LimitState empty() {
		return new LimitState(null, new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
	}

	/** A copy whose lists can be changed (a state read from JSON may hold fixed ones). */
	LimitState mutable() {
		return new LimitState(this.key, new ArrayList<>(nonNull(this.holders)), new ArrayList<>(nonNull(this.starts)),
				new ArrayList<>(nonNull(this.queue)));
	}

	/** This state as the entry of a key: the key is kept with it. */
	LimitState of(String limitKey) {
		return new LimitState(limitKey, this.holders, this.starts, this.queue);
	}

	/** When the first waiter arrived, or {@code null} when none waits. */
	Instant oldestWaitingSince() {
		return this.queue.stream().map(Waiter::since).min(Instant::compareTo).orElse(null);
	}

	private static <T> List<T> nonNull(List<T> list) {
		return (list != null) ? list : List.of();
	}

	/** Forgets the starts that left the rate window and the waiters that did not come back in time. */
	void forgetPast(LimitDefinition limit, Instant now) {
		forgetPast(limit, now, now);
	}

	/**
	 * Forgets the starts that surely left the rate window and the waiters that did not come back in
	 * time. Starts are stamped with an upper bound of the server's time ({@code latest}, on whichever
	 * instance started them), so one leaves the window only when a lower bound of it
	 * ({@code earliest}) is {@code per} past: instances whose bounds differ never let {@code rate + 1}
	 * starts into one window.
	 * @param limit the limit
	 * @param now an upper bound of the server's time (waiters' deadlines)
	 * @param earliest a lower bound of it (the rate window)
	 */
	void forgetPast(LimitDefinition limit, Instant now, Instant earliest) {
		if (limit.rate() > 0) {
			Instant windowStart = earliest.minus(limit.per());
			this.starts.removeIf((start) -> !start.isAfter(windowStart));
		}
		else {
			this.starts.clear();
		}
		this.queue.removeIf((waiter) -> waiter.until().isBefore(now));
	}

	/** How many more tasks may start now: the free slots and tokens, whichever fewer. */
	int free(LimitDefinition limit) {
		int free = Integer.MAX_VALUE;
		if (limit.concurrency() > 0) {
			free = Math.max(0, limit.concurrency() - this.holders.size());
		}
		if (limit.rate() > 0) {
			free = Math.min(free, Math.max(0, limit.rate() - this.starts.size()));
		}
		return free;
	}

	/** Whether a task may start now: a slot and token are free and no earlier waiter has the claim to them. */
	boolean mayStart(LimitDefinition limit, String task) {
		int place = place(task);
		int ahead = (place >= 0) ? place : this.queue.size();
		return ahead < free(limit);
	}

	/** The task's place in the queue, from 0, or -1. */
	int place(String task) {
		for (int i = 0; i < this.queue.size(); i++) {
			if (this.queue.get(i).task().equals(task)) {
				return i;
			}
		}
		return -1;
	}

	/** Lets a task start: it leaves the queue, holds a slot (under concurrency) and spends a token (under rate). */
	void start(LimitDefinition limit, String task, String token, Instant until, Instant now) {
		this.queue.removeIf((waiter) -> waiter.task().equals(task));
		this.holders.removeIf((holder) -> holder.task().equals(task));
		if (limit.concurrency() > 0) {
			this.holders.add(new Holder(task, token, until));
		}
		if (limit.rate() > 0) {
			this.starts.add(now);
		}
	}

	/** Queues a task, keeping its place when it is queued already; its place is kept until {@code until}. */
	void enqueue(String task, Instant now, Instant until) {
		int place = place(task);
		if (place >= 0) {
			this.queue.set(place, new Waiter(task, this.queue.get(place).since(), until));
		}
		else {
			this.queue.add(new Waiter(task, now, until));
		}
	}

	/**
	 * Gives back a task's slot.
	 * @return whether it held one
	 */
	boolean release(String task, String token) {
		return this.holders.removeIf((holder) -> holder.task().equals(task) && holder.token().equals(token));
	}

	/**
	 * When the waiter at a place should look again. Under a concurrency limit: when the first holder's
	 * lease ends, or after {@code headStart} when slots are free but held for the waiters ahead (a
	 * give-back wakes the head of the queue at once, so this look is the fallback for a holder that died
	 * or a wake that was lost, and must not wait for the queue ahead, which may be gone). Under a rate:
	 * when the token it will get is due, were every waiter ahead to take one in turn: the tokens free now
	 * (after {@code headStart}), then as each start of the window leaves it, a window later for each
	 * further round, so the waiters do not all look again at the window's end.
	 * @param limit the limit
	 * @param now the server's time
	 * @param headStart how long free slots and tokens are kept for the waiters ahead
	 * @param place the waiter's place in the queue, from 0
	 * @return when to look again, at least 100 ms from now
	 */
	Instant nextLook(LimitDefinition limit, Instant now, Duration headStart, int place) {
		Instant next = now;
		if (limit.concurrency() > 0) {
			next = (this.holders.size() < limit.concurrency()) ? now.plus(headStart)
					: this.holders.stream().map(Holder::until).min(Instant::compareTo).orElse(now);
		}
		if (limit.rate() > 0) {
			List<Instant> tokens = this.starts.stream().sorted().map((start) -> start.plus(limit.per())).toList();
			next = later(next, turn(tokens, limit.rate(), now.plus(headStart), limit.per(), place));
		}
		return later(next, now.plus(SOONEST));
	}

	/**
	 * When the {@code place}-th token from now is due: the {@code capacity - taken.size()} free ones at
	 * {@code free}, then each taken one as it frees, a {@code round} later for each round.
	 */
	private static Instant turn(List<Instant> taken, int capacity, Instant free, Duration round, int place) {
		int freeNow = Math.max(0, capacity - taken.size());
		int index = place % capacity;
		Instant first = (index < freeNow || taken.isEmpty()) ? free : taken.get(Math.min(index - freeNow, taken.size() - 1));
		return first.plus(round.multipliedBy(place / capacity));
	}

	private static Instant later(Instant a, Instant b) {
		return a.isAfter(b) ? a : b;
	}

	/** The first {@code count} waiters, whose turn has come. */
	List<Waiter> heads(int count) {
		return List.copyOf(this.queue.subList(0, Math.min(count, this.queue.size())));
	}

}
