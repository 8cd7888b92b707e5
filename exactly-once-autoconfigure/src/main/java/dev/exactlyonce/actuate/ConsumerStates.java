package dev.exactlyonce.actuate;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.ConsumerInfo;

/**
 * Reads consumer state from the server at most once per {@code maxAge} per consumer, so that
 * polling gauges do not turn every scrape into one request per gauge.
 */
public class ConsumerStates {

	private final Connection connection;

	private final Duration maxAge;

	private final Clock clock;

	private final Map<String, Cached> cache = new ConcurrentHashMap<>();

	/**
	 * Creates the cache.
	 * @param connection the NATS connection
	 * @param maxAge how long a read stays fresh
	 * @param clock the clock
	 */
	public ConsumerStates(Connection connection, Duration maxAge, Clock clock) {
		this.connection = connection;
		this.maxAge = maxAge;
		this.clock = clock;
	}

	/**
	 * The consumer's state, read again when older than the maximum age.
	 * @param stream the stream
	 * @param consumer the durable consumer
	 * @return the state, or {@code null} when the server could not be asked
	 */
	public ConsumerInfo get(String stream, String consumer) {
		Instant now = this.clock.instant();
		Cached cached = this.cache.get(stream + "/" + consumer);
		if (cached != null && cached.readAt().plus(this.maxAge).isAfter(now)) {
			return cached.info();
		}
		ConsumerInfo info = read(stream, consumer);
		this.cache.put(stream + "/" + consumer, new Cached(info, now));
		return info;
	}

	private ConsumerInfo read(String stream, String consumer) {
		try {
			return this.connection.jetStreamManagement().getConsumerInfo(stream, consumer);
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			return null;
		}
	}

	private record Cached(ConsumerInfo info, Instant readAt) {
	}

}
