package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;

/**
 * Counts the JetStream API requests a connection sends that match a test (KV gets, watches'
 * consumers), as the server delivers them to a subscriber on {@code $JS.API.>} of a connection of
 * its own.
 */
final class JetStreamApiMonitor implements AutoCloseable {

	private static final String MARK_SUBJECT = "jetstream-api-monitor.mark";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final Connection observed;

	private final Connection observer;

	private final AtomicLong counted = new AtomicLong();

	private final BlockingQueue<String> marks = new LinkedBlockingQueue<>();

	private int sent;

	/**
	 * Starts counting.
	 * @param observed the connection whose requests are counted
	 * @param counts which requests count
	 */
	JetStreamApiMonitor(Connection observed, Predicate<Message> counts) throws IOException, InterruptedException,
			TimeoutException {
		this.observed = observed;
		this.observer = Nats.connect(observed.getConnectedUrl());
		Dispatcher dispatcher = this.observer.createDispatcher((message) -> {
			if (message.getSubject().equals(MARK_SUBJECT)) {
				this.marks.add(new String(message.getData(), StandardCharsets.UTF_8));
			}
			else if (counts.test(message)) {
				this.counted.incrementAndGet();
			}
		});
		dispatcher.subscribe("$JS.API.>");
		dispatcher.subscribe(MARK_SUBJECT);
		this.observer.flush(TIMEOUT);
	}

	/**
	 * The requests counted so far: every request the observed connection sent before this call (a
	 * mark it publishes now follows them to the subscriber, in order).
	 * @return the count
	 */
	long count() {
		String mark = "mark-" + (++this.sent);
		try {
			this.observed.publish(MARK_SUBJECT, mark.getBytes(StandardCharsets.UTF_8));
			this.observed.flush(TIMEOUT);
			String arrived = this.marks.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			if (!mark.equals(arrived)) {
				throw new IllegalStateException("Mark " + mark + " not delivered (got " + arrived + ")");
			}
			return this.counted.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.observer.close();
	}

}
