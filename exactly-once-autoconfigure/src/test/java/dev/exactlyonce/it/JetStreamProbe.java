package dev.exactlyonce.it;

import java.io.IOException;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfo;

/**
 * Reads stream and consumer state from the server with a connection of its own, so tests assert
 * what the server holds rather than what the application believes.
 */
final class JetStreamProbe implements AutoCloseable {

	private final Connection connection;

	JetStreamProbe(String url) throws IOException, InterruptedException {
		this.connection = Nats.connect(url);
	}

	ConsumerInfo consumer(String stream, String consumer) throws IOException, JetStreamApiException {
		return this.connection.jetStreamManagement().getConsumerInfo(stream, consumer);
	}

	StreamInfo stream(String stream) throws IOException, JetStreamApiException {
		return this.connection.jetStreamManagement().getStreamInfo(stream);
	}

	/** Whether the consumer has nothing pending and nothing awaiting an ack. */
	boolean drained(String stream, String consumer) throws IOException, JetStreamApiException {
		ConsumerInfo info = consumer(stream, consumer);
		return info.getNumPending() == 0 && info.getNumAckPending() == 0;
	}

	Connection connection() {
		return this.connection;
	}

	@Override
	public void close() throws InterruptedException {
		this.connection.close();
	}

}
