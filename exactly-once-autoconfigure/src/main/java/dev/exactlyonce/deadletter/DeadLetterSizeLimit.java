package dev.exactlyonce.deadletter;

import java.io.IOException;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;

/**
 * The largest message (headers plus body) the server stores on a dead-letter subject: the
 * connection's {@code max_payload}, and the {@code max_msg_size} of the stream that captures the
 * subject when it sets one. Read at each dead letter (they are rare), so a changed limit applies at
 * once.
 */
public class DeadLetterSizeLimit {

	private final Connection connection;

	/**
	 * Creates the limit.
	 * @param connection the NATS connection
	 */
	public DeadLetterSizeLimit(Connection connection) {
		this.connection = connection;
	}

	/**
	 * The limit on a subject.
	 * @param subject the dead-letter subject
	 * @return the limit and where it comes from
	 */
	public Limit forSubject(String subject) {
		long maxPayload = this.connection.getMaxPayload();
		Limit limit = new Limit((maxPayload > 0) ? maxPayload : Long.MAX_VALUE, "server max_payload " + maxPayload);
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			List<String> streams = management.getStreamNames(subject);
			if (!streams.isEmpty()) {
				long maxMsgSize = management.getStreamInfo(streams.get(0)).getConfiguration().getMaximumMessageSize();
				if (maxMsgSize > 0 && maxMsgSize < limit.bytes()) {
					limit = new Limit(maxMsgSize, "max_msg_size " + maxMsgSize + " of stream '" + streams.get(0) + "'");
				}
			}
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			// the stream's own limit is unknown: the server refuses a dead letter above it
		}
		return limit;
	}

	/**
	 * A size limit.
	 *
	 * @param bytes the largest message in bytes
	 * @param source which setting sets it
	 */
	public record Limit(long bytes, String source) {
	}

}
