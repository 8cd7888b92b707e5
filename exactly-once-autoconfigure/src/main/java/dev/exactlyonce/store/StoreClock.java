package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Instant;

/**
 * The clock {@link ClaimRules} decide lease expiry on: an interval that contains the store's
 * current time. Records are written with its {@link #latest()} bound and leases are judged with its
 * {@link #earliest()} bound, so an uncertain clock only makes a claim last longer, never shorter.
 */
public interface StoreClock {

	/**
	 * The earliest the store's time can be now.
	 * @return the lower bound
	 */
	Instant earliest();

	/**
	 * The latest the store's time can be now.
	 * @return the upper bound
	 */
	Instant latest();

	/**
	 * The instant of this instance's own clock at which the store's clock will read
	 * {@code storeInstant} at the latest (what callers compare with their own clock, e.g. to wait for
	 * a holder's lease).
	 * @param storeInstant an instant on the store's clock
	 * @return the same moment on this instance's clock
	 */
	Instant toLocal(Instant storeInstant);

	/**
	 * A store clock that is this instance's own clock, exact (a store inside this process).
	 * @param clock the clock
	 * @return the store clock
	 */
	static StoreClock of(Clock clock) {
		return new StoreClock() {

			@Override
			public Instant earliest() {
				return clock.instant();
			}

			@Override
			public Instant latest() {
				return clock.instant();
			}

			@Override
			public Instant toLocal(Instant storeInstant) {
				return storeInstant;
			}

		};
	}

}
