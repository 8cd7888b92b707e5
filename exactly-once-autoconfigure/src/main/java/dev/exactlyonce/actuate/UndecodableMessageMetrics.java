package dev.exactlyonce.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.exactlyonce.nats.NatsReaderListener;

/**
 * Counts the messages the NATS connection's reader could not decode (each stopped the reader and
 * caused a reconnect), registered at start-up so a dashboard shows zero rather than nothing.
 */
public class UndecodableMessageMetrics implements NatsReaderListener {

	private final Counter undecodable;

	/**
	 * Creates the metrics and registers the counter.
	 * @param registry the registry
	 */
	public UndecodableMessageMetrics(MeterRegistry registry) {
		this.undecodable = Counter.builder(ExactlyOnceMeters.UNDECODABLE_MESSAGES)
			.description("Messages the NATS client could not decode (header values that are not printable US-ASCII); "
					+ "each stopped the connection's reader and caused a reconnect")
			.register(registry);
	}

	@Override
	public void readerFailed(Throwable failure) {
		this.undecodable.increment();
	}

}
