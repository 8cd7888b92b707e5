package dev.exactlyonce.waits;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreClock;
import dev.exactlyonce.waits.spi.AwaitedDecision;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitSuspension;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * The durable waits of one claimed delivery. A wait is journaled like a step: STARTED with its
 * deadline (on the server's clock) the first time it is reached, DONE with what ended it. A wait
 * that can end now (a signal or a decision is stored, the deadline passed) is journaled DONE and
 * returns; otherwise it throws {@link WaitSuspension}, and the pipeline suspends the task.
 */
final class TaskWaitSession implements WaitSession {

	private final WaitingTask task;

	private final NatsTaskWaits waits;

	private volatile WaitSuspension thrown;

	TaskWaitSession(WaitingTask task, NatsTaskWaits waits) {
		this.task = task;
		this.waits = waits;
	}

	@Override
	public <T> Optional<T> awaitSignal(String name, ParameterizedTypeReference<T> type, Duration timeout) {
		requireWithinLimit(name, timeout);
		StepRecord earlier = this.task.begin(name).orElse(null);
		if (earlier != null && earlier.state() == StepState.DONE) {
			try {
				return entries().payload(earlier, type);
			}
			catch (StepRejectedException ex) {
				throw new StepRejectedException(ex.getMessage() + ". Its wait ended with this payload in an earlier "
						+ "attempt of this run: read it as the type it was sent as, or resubmit the task", ex);
			}
		}
		StepRecord started = started(name, WaitTicket.Kind.SIGNAL, earlier, () -> clock().latest().plus(timeout));
		WaitKey key = new WaitKey(this.task.storeKey(), this.task.run(), name);
		Instant until = until(started, WaitTicket.Kind.SIGNAL);
		Optional<WaitDecision> decision = this.waits.decisions().find(key);
		if (decision.isEmpty() && !clock().earliest().isBefore(until)) {
			decision = Optional.of(this.waits.decisions().decide(key, WaitDecision.timedOut(clock().latest())));
		}
		if (decision.isEmpty()) {
			throw suspend(new WaitSuspension(name, WaitTicket.Kind.SIGNAL.label(), until));
		}
		StepRecord done = entries().decided(started, decision.get(), this.task.attempt(), clock().latest());
		Optional<T> payload;
		try {
			payload = entries().payload(done, type);
		}
		catch (StepRejectedException ex) {
			// a signal the wait cannot read does not end it: dropped, so the replayed task waits for another
			this.waits.decisions().discard(key, decision.get());
			throw new StepRejectedException(ex.getMessage() + ". The signal is dropped and the wait goes on (until "
					+ until + "): replay the task's dead letter, then send a signal of that type", ex);
		}
		this.task.journal(done);
		return payload;
	}

	@Override
	public Map<String, AwaitedDecision> awaitDecisions(String name, List<String> decisionNames, Duration timeout) {
		requireWithinLimit(name, timeout);
		StepRecord earlier = this.task.begin(name).orElse(null);
		if (earlier != null && earlier.state() == StepState.DONE) {
			return entries().awaited(earlier);
		}
		StepRecord started = started(name, WaitTicket.Kind.CHILD, earlier, () -> clock().latest().plus(timeout));
		Instant until = until(started, WaitTicket.Kind.CHILD);
		boolean due = !clock().earliest().isBefore(until);
		// read from the last: the task suspends on the last decision missing, so a wait that
		// suspends reads only the decisions after it, and children started one after the other,
		// which mostly finish in that order, resume it about once, with the others in
		Map<String, AwaitedDecision> read = new HashMap<>();
		for (int i = decisionNames.size() - 1; i >= 0; i--) {
			String decisionName = decisionNames.get(i);
			WaitKey key = new WaitKey(this.task.storeKey(), this.task.run(), decisionName);
			Optional<WaitDecision> decision = this.waits.decisions().find(key);
			if (decision.isEmpty() && due) {
				decision = Optional.of(this.waits.decisions().decide(key, WaitDecision.timedOut(clock().latest())));
			}
			Optional<AwaitedDecision> awaited = decision.map((decided) -> WaitEntries.awaited(decided, until))
				.or(() -> this.waits.decisions().findNotice(key).map((notice) -> WaitEntries.awaited(notice, until)));
			if (awaited.isEmpty()) {
				throw suspend(new WaitSuspension(decisionName, WaitTicket.Kind.CHILD.label(), until));
			}
			read.put(decisionName, awaited.get());
		}
		Map<String, AwaitedDecision> found = new LinkedHashMap<>();
		decisionNames.forEach((decisionName) -> found.put(decisionName, read.get(decisionName)));
		if (found.values().stream().noneMatch((awaited) -> awaited.state() == AwaitedDecision.State.NOTICED)) {
			this.task.journal(entries().awaitedAll(started, found, this.task.attempt(), clock().latest()));
		}
		return found;
	}

	@Override
	public void sleep(String name, Duration duration) {
		requireWithinLimit(name, duration);
		sleepUntil(name, this.task.begin(name).orElse(null), () -> clock().latest().plus(duration));
	}

	@Override
	public void sleepUntil(String name, Instant at) {
		Duration ahead = Duration.between(clock().latest(), at);
		requireWithinLimit(name, ahead.isNegative() ? Duration.ZERO : ahead);
		sleepUntil(name, this.task.begin(name).orElse(null), () -> at);
	}

	private void sleepUntil(String name, StepRecord earlier, DeadlineSupplier deadline) {
		if (earlier != null && earlier.state() == StepState.DONE) {
			return;
		}
		StepRecord started = started(name, WaitTicket.Kind.SLEEP, earlier, deadline);
		Instant until = until(started, WaitTicket.Kind.SLEEP);
		if (clock().earliest().isBefore(until)) {
			throw suspend(new WaitSuspension(name, WaitTicket.Kind.SLEEP.label(), until));
		}
		this.task.journal(entries().woke(started, this.task.attempt(), clock().latest()));
	}

	/**
	 * The wait's STARTED entry: an earlier attempt's, whose deadline is kept, or a new one journaled
	 * now with the deadline computed once.
	 */
	private StepRecord started(String name, WaitTicket.Kind kind, StepRecord earlier, DeadlineSupplier deadline) {
		if (earlier != null && earlier.state() == StepState.STARTED
				&& entries().until(earlier, name, kind).isPresent()) {
			return earlier;
		}
		String origin = (earlier != null && earlier.origin() != null) ? earlier.origin() : this.task.token();
		StepRecord started = entries().started(name, kind, deadline.get(), this.task.attempt(), origin, clock().latest());
		this.task.journal(started);
		return started;
	}

	private Instant until(StepRecord started, WaitTicket.Kind kind) {
		return entries().until(started, started.name(), kind).orElseThrow();
	}

	@Override
	public WaitSuspension thrown() {
		return this.thrown;
	}

	private WaitSuspension suspend(WaitSuspension suspension) {
		if (this.thrown == null) {
			this.thrown = suspension;
		}
		return this.thrown;
	}

	private void requireWithinLimit(String name, Duration duration) {
		Duration limit = this.waits.settings().maxDuration();
		if (duration == null || duration.isNegative() || duration.compareTo(limit) > 0) {
			throw new StepRejectedException("Wait '" + name + "' of the message at " + this.task.describe() + " lasts "
					+ duration + ", outside 0 to exactlyonce.waits.max-duration (" + limit + "): raise the property "
					+ "(records and journals are kept that much longer) or wait less", null);
		}
	}

	private WaitEntries entries() {
		return this.waits.entries();
	}

	private StoreClock clock() {
		return this.waits.clock();
	}

	/** A deadline, computed only when the wait is journaled for the first time. */
	@FunctionalInterface
	private interface DeadlineSupplier {

		Instant get();

	}

}
