package dev.exactlyonce.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
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

	/**
	 * How many deliveries the consumer made, redeliveries included (its delivered consumer
	 * sequence). Unlike {@link ConsumerInfo#getRedelivered()}, which counts only messages still
	 * waiting to be redelivered and so reads 0 once the consumer is drained, it never goes down.
	 */
	long deliveries(String stream, String consumer) throws IOException, JetStreamApiException {
		return consumer(stream, consumer).getDelivered().getConsumerSequence();
	}

	/** Whether the consumer has nothing pending and nothing awaiting an ack. */
	boolean drained(String stream, String consumer) throws IOException, JetStreamApiException {
		ConsumerInfo info = consumer(stream, consumer);
		return info.getNumPending() == 0 && info.getNumAckPending() == 0;
	}

	/** Every message stored on a subject of a stream, read back by sequence. */
	List<MessageInfo> messages(String stream, String subject) throws IOException, JetStreamApiException {
		StreamInfo info = stream(stream);
		List<MessageInfo> found = new ArrayList<>();
		if (info.getStreamState().getMsgCount() == 0) {
			return found;
		}
		for (long seq = info.getStreamState().getFirstSequence(); seq <= info.getStreamState().getLastSequence(); seq++) {
			try {
				MessageInfo message = this.connection.jetStreamManagement().getMessage(stream, seq);
				if (message.getSubject().equals(subject)) {
					found.add(message);
				}
			}
			catch (JetStreamApiException ex) {
				if (ex.getApiErrorCode() != 10037) {
					throw ex;
				}
			}
		}
		return found;
	}

	Connection connection() {
		return this.connection;
	}

	@Override
	public void close() throws InterruptedException {
		this.connection.close();
	}

}
