package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;

/**
 * The settings every listener of the application shares; each consumer adds its own
 * {@link ConsumerSettings}.
 *
 * @param shutdownTimeout the whole time stopping the listeners may take
 * @param ackMode how a delivery is acknowledged once its completion record is durable
 * @param ackTimeout how long to wait for the server to confirm an ack ({@link AckMode#SYNC})
 * @param completionRetryTimeout how long to keep retrying a completion record while the store is
 * unreachable
 * @param autoStartup whether the containers start with the application context
 * @param nonRetryableExceptions exception types (and subtypes) that dead-letter a message at once
 * @param requestTimeout the timeout of JetStream API requests, such as reading a message back
 * @param resultSummaryMaxLength the most characters of a handler's result kept in its record
 * @param pipelined whether completion records and acks are written off the handler threads, so a
 * worker takes its next message while the last one's record is written (see
 * {@link ListenerContainer})
 * @param threads what handlers, completion records and working acks run on
 */
public record ListenerSettings(Duration shutdownTimeout, AckMode ackMode, Duration ackTimeout,
		Duration completionRetryTimeout, boolean autoStartup, List<Class<? extends Throwable>> nonRetryableExceptions,
		Duration requestTimeout, int resultSummaryMaxLength, boolean pipelined,
		ListenerThreads threads) {

	public ListenerSettings {
		nonRetryableExceptions = List.copyOf(nonRetryableExceptions);
	}

}
