package dev.exactlyonce.store;

import java.time.Instant;
import java.util.function.Supplier;

/**
 * One request to a store's server that the server stamps with its own time, for
 * {@link MeasuredStoreClock}.
 */
@FunctionalInterface
public interface ServerTimeProbe {

	/**
	 * Sends the request and waits for its answer; the server's stamp must be taken while the
	 * request is under way (after it was sent, before it was answered).
	 * @return reads the server's stamp afterwards (may take another round trip outside the
	 * measurement); it gives {@code null} when the stamp cannot be read any more and the probe should
	 * be sent again
	 * @throws StoreUnavailableException when the server does not answer
	 */
	Supplier<Instant> send();

}
