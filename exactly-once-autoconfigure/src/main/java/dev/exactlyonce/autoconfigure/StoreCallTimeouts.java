package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Checks at start-up that every store call gives up before the lease it could be writing runs
 * out: a claim or renewal answered after its lease ended would let a handler run while another
 * instance took the task over. The pipeline also refuses to run a claim answered too late, at run
 * time; this check keeps that from being the normal case.
 */
final class StoreCallTimeouts {

	private StoreCallTimeouts() {
	}

	/**
	 * Fails start-up unless {@code timeout} is below the lease.
	 * @param timeoutProperty the property that sets the timeout, with a note on its default if useful
	 * @param timeout how long one store call may wait for its answer
	 * @param lease {@code exactlyonce.store.lease}
	 * @param fixProperty the property to lower
	 * @throws ExactlyOnceConfigurationException when the timeout is not below the lease
	 */
	static void requireBelowLease(String timeoutProperty, Duration timeout, Duration lease, String fixProperty) {
		if (timeout.compareTo(lease) >= 0) {
			throw new ExactlyOnceConfigurationException(timeoutProperty + " is " + DurationText.of(timeout)
					+ " but exactlyonce.store.lease is " + DurationText.of(lease)
					+ ": a store call answered that late could outlast the claim it wrote, letting two instances "
					+ "run one task", "Set " + fixProperty + " below exactlyonce.store.lease (a few seconds is "
							+ "typical) or raise exactlyonce.store.lease above " + DurationText.of(timeout) + ".");
		}
	}

}
