package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.springframework.beans.factory.config.BeanPostProcessor;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Wraps an instance's real store so a test can cut that instance off from it for some operations
 * (as a paused process, a partition or an outage would), while every other operation reaches the
 * real store.
 */
public class StoreFaults implements BeanPostProcessor {

	private volatile boolean renewalsBlocked;

	private volatile boolean claimsFail;

	private volatile long completionsFailUntil;

	private volatile boolean duplicateNotesFail;

	private volatile CountDownLatch completionsHeld = new CountDownLatch(0);

	private final AtomicInteger heldCompletions = new AtomicInteger();

	private volatile String heldKeySuffix = "";

	private volatile String failingFindKey = "";

	private final AtomicInteger findsBeforeFailure = new AtomicInteger(-1);

	private volatile String heldFindKey = "";

	private final CountDownLatch findsHeld = new CountDownLatch(1);

	private final AtomicInteger heldFinds = new AtomicInteger();

	private final AtomicInteger stepWritesBeforeFailure = new AtomicInteger(-1);

	private final AtomicInteger failedStepWrites = new AtomicInteger();

	/** From now on, completions wait (a minute at most) until {@link #releaseCompletions()}. */
	public void holdCompletions() {
		holdCompletionsOf("");
	}

	/**
	 * From now on, completions of the keys ending with {@code keySuffix} wait (a minute at most)
	 * until {@link #releaseCompletions()}; the others pass.
	 */
	public void holdCompletionsOf(String keySuffix) {
		this.heldKeySuffix = keySuffix;
		this.completionsHeld = new CountDownLatch(1);
	}

	/** Lets held completions, and every later one, through. */
	public void releaseCompletions() {
		this.completionsHeld.countDown();
	}

	/** Completions waiting for {@link #releaseCompletions()} right now. */
	public int heldCompletions() {
		return this.heldCompletions.get();
	}

	/** From now on, renewals fail as if the store were unreachable. */
	public void blockRenewals() {
		this.renewalsBlocked = true;
	}

	/** Makes claims fail as if the store were unreachable, until called with {@code false}. */
	public void failClaims(boolean fail) {
		this.claimsFail = fail;
	}

	/**
	 * Lets the next {@code passing} reads of one record ({@code find}, {@code findWithoutJournal}) reach the store, then fails the read after
	 * them (once) as if the store were unreachable.
	 * @param key the record's key
	 * @param passing how many reads of it pass first
	 */
	public void failOneFindOf(String key, int passing) {
		this.failingFindKey = key;
		this.findsBeforeFailure.set(passing);
	}

	/**
	 * From now on, reads of one record ({@code find}, {@code findWithoutJournal}) wait (a minute at
	 * most) until {@link #releaseFinds()}, as a store that stopped answering would; counted by
	 * {@link #heldFinds()}.
	 * @param key the record's key
	 */
	public void holdFindsOf(String key) {
		this.heldFindKey = key;
	}

	/** Lets held reads, and every later one, through. */
	public void releaseFinds() {
		this.findsHeld.countDown();
	}

	/** How many reads {@link #holdFindsOf(String)} held, released or not. */
	public int heldFinds() {
		return this.heldFinds.get();
	}

	/**
	 * Lets the next {@code passing} journal writes ({@code recordStep}, {@code recordSteps}) reach
	 * the store, then fails the write after them (once) as if the store were unreachable.
	 * @param passing how many journal writes pass first
	 */
	public void failOneStepWriteAfter(int passing) {
		this.stepWritesBeforeFailure.set(passing);
	}

	/** How many journal writes {@link #failOneStepWriteAfter(int)} failed. */
	public int failedStepWrites() {
		return this.failedStepWrites.get();
	}

	/** From now on, notes of duplicate copies fail as if the store were unreachable. */
	public void failDuplicateNotes() {
		this.duplicateNotesFail = true;
	}

	/** For the given time from now, completions fail as if the store were unreachable. */
	public void failCompletionsFor(Duration outage) {
		this.completionsFailUntil = System.nanoTime() + outage.toNanos();
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof IdempotencyStore store) {
			return (store instanceof RecordScanner) ? new ScanningSwitchedStore(store) : new SwitchedStore(store);
		}
		return bean;
	}

	private class SwitchedStore implements IdempotencyStore {

		final IdempotencyStore delegate;

		private SwitchedStore(IdempotencyStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public ClaimResult tryClaim(String key, String owner, Duration lease) {
			if (StoreFaults.this.claimsFail) {
				throw new StoreUnavailableException("claims failing in this test", null);
			}
			return this.delegate.tryClaim(key, owner, lease);
		}

		@Override
		public Claim renew(Claim claim, Duration lease) {
			if (StoreFaults.this.renewalsBlocked) {
				throw new StoreUnavailableException("renewals blocked by the test", null);
			}
			return this.delegate.renew(claim, lease);
		}

		@Override
		public IdempotencyRecord complete(Claim claim, Completion completion) {
			if (System.nanoTime() < StoreFaults.this.completionsFailUntil) {
				throw new StoreUnavailableException("completions failing by the test", null);
			}
			if (claim.key().endsWith(StoreFaults.this.heldKeySuffix)) {
				awaitRelease();
			}
			return this.delegate.complete(claim, completion);
		}

		private void awaitRelease() {
			CountDownLatch held = StoreFaults.this.completionsHeld;
			if (held.getCount() == 0) {
				return;
			}
			StoreFaults.this.heldCompletions.incrementAndGet();
			try {
				await(held, "completion");
			}
			finally {
				StoreFaults.this.heldCompletions.decrementAndGet();
			}
		}

		private void await(CountDownLatch held, String what) {
			try {
				if (!held.await(1, TimeUnit.MINUTES)) {
					throw new StoreUnavailableException(what + " held by the test for a minute", null);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new StoreUnavailableException("interrupted while the test held the " + what, ex);
			}
		}

		@Override
		public void release(Claim claim, String failure) {
			this.delegate.release(claim, failure);
		}

		@Override
		public IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action) {
			return this.delegate.recordOperatorAction(key, expectedToken, action);
		}

		@Override
		public void recordStep(Claim claim, StepRecord step) {
			interfereWithStepWrite();
			this.delegate.recordStep(claim, step);
		}

		@Override
		public void recordSteps(Claim claim, List<StepRecord> steps) {
			interfereWithStepWrite();
			this.delegate.recordSteps(claim, steps);
		}

		private void interfereWithStepWrite() {
			if (StoreFaults.this.stepWritesBeforeFailure.getAndUpdate((left) -> (left >= 0) ? left - 1 : left) == 0) {
				StoreFaults.this.failedStepWrites.incrementAndGet();
				throw new StoreUnavailableException("a journal write failing by the test", null);
			}
		}

		@Override
		public void recordStepWithTransaction(Claim claim, StepRecord step) {
			this.delegate.recordStepWithTransaction(claim, step);
		}

		@Override
		public void recordDuplicate(String key, long streamSequence) {
			if (StoreFaults.this.duplicateNotesFail) {
				throw new StoreUnavailableException("duplicate notes failing by the test", null);
			}
			this.delegate.recordDuplicate(key, streamSequence);
		}

		@Override
		public Optional<IdempotencyRecord> find(String key) {
			interfere(key);
			return this.delegate.find(key);
		}

		@Override
		public Optional<IdempotencyRecord> findWithoutJournal(String key) {
			interfere(key);
			return this.delegate.findWithoutJournal(key);
		}

		private void interfere(String key) {
			if (key.equals(StoreFaults.this.heldFindKey) && StoreFaults.this.findsHeld.getCount() > 0) {
				StoreFaults.this.heldFinds.incrementAndGet();
				await(StoreFaults.this.findsHeld, "read of " + key);
			}
			if (key.equals(StoreFaults.this.failingFindKey) && StoreFaults.this.findsBeforeFailure.getAndDecrement() == 0) {
				throw new StoreUnavailableException("a read of " + key + " failing by the test", null);
			}
		}

		@Override
		public String name() {
			return this.delegate.name();
		}

	}

	/** A switched store whose real store can list its records (scans are never cut off). */
	private final class ScanningSwitchedStore extends SwitchedStore implements RecordScanner {

		private ScanningSwitchedStore(IdempotencyStore delegate) {
			super(delegate);
		}

		@Override
		public void scan(Consumer<IdempotencyRecord> action) {
			((RecordScanner) this.delegate).scan(action);
		}

	}

}
