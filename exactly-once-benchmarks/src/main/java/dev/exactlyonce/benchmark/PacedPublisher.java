package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;

/**
 * Publishes a run's messages at a steady rate while its listener runs (an open loop: the
 * messages come whether or not the listener keeps up), noting each one's publish time. Uses
 * {@code publishAsync} with a bounded number of unconfirmed publishes, so the publisher keeps
 * its pace even when one confirmation is slow.
 */
final class PacedPublisher {

	private static final int MAX_UNCONFIRMED = 1000;

	private static final byte[] PAYLOAD = "{\"task\":\"benchmark\"}".getBytes(StandardCharsets.UTF_8);

	private final JetStream jetStream;

	private final PublishToAck publishToAck;

	PacedPublisher(JetStream jetStream, PublishToAck publishToAck) {
		this.jetStream = jetStream;
		this.publishToAck = publishToAck;
	}

	/** Publishes messages 1 to {@code messages} (their stream sequences on a fresh stream). */
	void publish(String subject, int messages, double rate) {
		Deque<CompletableFuture<PublishAck>> unconfirmed = new ArrayDeque<>();
		long started = System.nanoTime();
		double intervalNanos = 1e9 / rate;
		for (int i = 0; i < messages; i++) {
			long due = started + (long) (i * intervalNanos);
			for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
				LockSupport.parkNanos(wait);
			}
			if (unconfirmed.size() == MAX_UNCONFIRMED) {
				unconfirmed.removeFirst().join();
			}
			this.publishToAck.published(i + 1, System.nanoTime());
			unconfirmed.addLast(this.jetStream.publishAsync(NatsMessage.builder().subject(subject).data(PAYLOAD).build(),
					PublishOptions.builder().messageId(subject + "-" + i).build()));
		}
		unconfirmed.forEach(CompletableFuture::join);
	}

}
