package dev.exactlyonce.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.StepRecord;

/**
 * Decorates an {@link IdempotencyStore} with the {@code exactlyonce.store.latency} timer, tagged
 * by operation and by outcome ({@code success}, {@code claim_lost}, {@code error}). Use
 * {@link #of} so that a store that is also a {@link RecordScanner} stays one.
 */
public class TimedIdempotencyStore implements IdempotencyStore {

	private final IdempotencyStore delegate;

	private final MeterRegistry registry;

	TimedIdempotencyStore(IdempotencyStore delegate, MeterRegistry registry) {
		this.delegate = delegate;
		this.registry = registry;
	}

	/**
	 * Decorates a store.
	 * @param store the store
	 * @param registry the registry
	 * @return the timed store, a {@link RecordScanner} too when {@code store} is one
	 */
	public static TimedIdempotencyStore of(IdempotencyStore store, MeterRegistry registry) {
		return (store instanceof RecordScanner) ? new Scanning(store, registry) : new TimedIdempotencyStore(store, registry);
	}

	/**
	 * The decorated store.
	 * @return the store
	 */
	public IdempotencyStore getDelegate() {
		return this.delegate;
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		return timed("claim", () -> this.delegate.tryClaim(key, owner, lease));
	}

	@Override
	public Claim renew(Claim claim, Duration lease) {
		return timed("renew", () -> this.delegate.renew(claim, lease));
	}

	@Override
	public IdempotencyRecord complete(Claim claim, Completion completion) {
		return timed("complete", () -> this.delegate.complete(claim, completion));
	}

	@Override
	public void release(Claim claim, String failure) {
		timed("release", () -> {
			this.delegate.release(claim, failure);
			return null;
		});
	}

	@Override
	public void recordStep(Claim claim, StepRecord step) {
		timed("step", () -> {
			this.delegate.recordStep(claim, step);
			return null;
		});
	}

	/** Times the entries' one write as one {@code step} operation (the delegate's write, not one per entry). */
	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		timed("step", () -> {
			this.delegate.recordSteps(claim, steps);
			return null;
		});
	}

	@Override
	public void recordStepWithTransaction(Claim claim, StepRecord step) {
		timed("step", () -> {
			this.delegate.recordStepWithTransaction(claim, step);
			return null;
		});
	}

	@Override
	public void recordDuplicate(String key, long streamSequence) {
		timed("duplicate", () -> {
			this.delegate.recordDuplicate(key, streamSequence);
			return null;
		});
	}

	@Override
	public IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action) {
		return timed("operator", () -> this.delegate.recordOperatorAction(key, expectedToken, action));
	}

	@Override
	public Optional<IdempotencyRecord> find(String key) {
		return timed("find", () -> this.delegate.find(key));
	}

	@Override
	public Optional<IdempotencyRecord> findWithoutJournal(String key) {
		return timed("find_without_journal", () -> this.delegate.findWithoutJournal(key));
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	private <T> T timed(String operation, Supplier<T> call) {
		long started = System.nanoTime();
		String outcome = "error";
		try {
			T result = call.get();
			outcome = "success";
			return result;
		}
		catch (ClaimLostException ex) {
			outcome = "claim_lost";
			throw ex;
		}
		finally {
			Timer.builder(ExactlyOnceMeters.STORE_LATENCY)
				.description("Latency of idempotency store operations")
				.tags("store", this.delegate.name(), "op", operation, "outcome", outcome)
				.register(this.registry)
				.record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
	}

	/** A timed store whose delegate can list its records. */
	static final class Scanning extends TimedIdempotencyStore implements RecordScanner {

		Scanning(IdempotencyStore delegate, MeterRegistry registry) {
			super(delegate, registry);
		}

		@Override
		public void scan(Consumer<IdempotencyRecord> action) {
			((RecordScanner) getDelegate()).scan(action);
		}

	}

}
