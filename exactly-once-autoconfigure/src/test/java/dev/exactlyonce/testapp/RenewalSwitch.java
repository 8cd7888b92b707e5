package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.Optional;

import org.springframework.beans.factory.config.BeanPostProcessor;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Wraps an instance's real store so a test can cut that instance off from lease renewals (as a
 * paused process or a partition would), while every other operation reaches the real store.
 */
public class RenewalSwitch implements BeanPostProcessor {

	private volatile boolean renewalsBlocked;

	public void blockRenewals() {
		this.renewalsBlocked = true;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof IdempotencyStore store) {
			return new SwitchedStore(store);
		}
		return bean;
	}

	private final class SwitchedStore implements IdempotencyStore {

		private final IdempotencyStore delegate;

		private SwitchedStore(IdempotencyStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public ClaimResult tryClaim(String key, String owner, Duration lease) {
			return this.delegate.tryClaim(key, owner, lease);
		}

		@Override
		public Claim renew(Claim claim, Duration lease) {
			if (RenewalSwitch.this.renewalsBlocked) {
				throw new StoreUnavailableException("renewals blocked by the test", null);
			}
			return this.delegate.renew(claim, lease);
		}

		@Override
		public IdempotencyRecord complete(Claim claim, Completion completion) {
			return this.delegate.complete(claim, completion);
		}

		@Override
		public void release(Claim claim, String failure) {
			this.delegate.release(claim, failure);
		}

		@Override
		public Optional<IdempotencyRecord> find(String key) {
			return this.delegate.find(key);
		}

		@Override
		public String name() {
			return this.delegate.name();
		}

	}

}
