package dev.exactlyonce.faults;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamState;

/**
 * Evidence of what a nats-server restart did to the marketing consumer: its state (ack floor,
 * delivered, ack-pending, pending, awaiting redelivery) and the stream's just before each kill -9 and
 * a few times after the restart, one log line each. An ack floor that went back, or ack-pending
 * messages that no instance holds, show up here.
 */
final class RestartTrace {

	private static final List<Duration> LOOKS_AFTER = List.of(Duration.ofSeconds(2), Duration.ofSeconds(10),
			Duration.ofSeconds(30));

	private final Connection connection;

	private final String stream;

	private final String consumer;

	private final Log log;

	private final Deque<long[]> due = new ArrayDeque<>();

	RestartTrace(Connection connection, String stream, String consumer, Log log) {
		this.connection = connection;
		this.stream = stream;
		this.consumer = consumer;
		this.log = log;
	}

	/**
	 * Logs the state before restart {@code number}.
	 * @param number the restart's number, from 1
	 */
	void beforeKill(int number) {
		this.log.line("restart " + number + ", before the kill: " + state());
	}

	/**
	 * Plans the looks after restart {@code number}.
	 * @param number the restart's number
	 */
	void restarted(int number) {
		long now = System.nanoTime();
		LOOKS_AFTER.forEach((after) -> this.due.add(new long[] { now + after.toNanos(), number, after.toSeconds() }));
	}

	/** Logs the looks that are due. */
	void poll() {
		long now = System.nanoTime();
		while (!this.due.isEmpty() && this.due.peekFirst()[0] <= now) {
			long[] look = this.due.removeFirst();
			this.log.line("restart " + look[1] + ", +" + look[2] + " s: " + state());
		}
	}

	private String state() {
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			ConsumerInfo info = management.getConsumerInfo(this.stream, this.consumer);
			StreamState stream = management.getStreamInfo(this.stream).getStreamState();
			return this.consumer + " ack floor " + info.getAckFloor().getStreamSequence() + ", delivered "
					+ info.getDelivered().getStreamSequence() + ", ack pending " + info.getNumAckPending() + ", pending "
					+ info.getNumPending() + ", awaiting redelivery " + info.getRedelivered() + ", waiting pulls "
					+ info.getNumWaiting() + "; stream " + this.stream + " first " + stream.getFirstSequence() + ", last "
					+ stream.getLastSequence() + ", messages " + stream.getMsgCount() + ", deleted "
					+ stream.getDeletedCount();
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			return "unreadable: " + ex.getMessage();
		}
	}

}
