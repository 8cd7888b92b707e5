package dev.exactlyonce.audit;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.nats.client.impl.Headers;

import dev.exactlyonce.deadletter.DeadLetterPublisher;

/**
 * Reads the dead-letter stream: how many dead letters a subject holds, and what they say; removes
 * one an operator replayed or discarded.
 */
public class DeadLetters {

	private static final int NO_MESSAGE_FOUND = 10037;

	private static final int STREAM_NOT_FOUND = 10059;

	private final Connection connection;

	private final String stream;

	/**
	 * Creates the reader.
	 * @param connection the NATS connection
	 * @param stream the dead-letter stream ({@code exactlyonce.dead-letter.stream})
	 */
	public DeadLetters(Connection connection, String stream) {
		this.connection = connection;
		this.stream = stream;
	}

	/**
	 * The dead-letter stream's name.
	 * @return the stream
	 */
	public String stream() {
		return this.stream;
	}

	/**
	 * How many dead letters a subject holds now.
	 * @param subject the dead-letter subject
	 * @return the count, 0 when the stream does not exist
	 * @throws IOException when the server cannot be asked
	 * @throws JetStreamApiException when the server refuses
	 */
	public long count(String subject) throws IOException, JetStreamApiException {
		StreamInfo info;
		try {
			info = this.connection.jetStreamManagement()
				.getStreamInfo(this.stream, StreamInfoOptions.filterSubjects(subject));
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == STREAM_NOT_FOUND) {
				return 0;
			}
			throw ex;
		}
		List<Subject> subjects = info.getStreamState().getSubjects();
		return (subjects != null) ? subjects.stream().mapToLong(Subject::getCount).sum() : 0;
	}

	/**
	 * Reads the headers of the dead letters on a subject, oldest first.
	 * @param subject the dead-letter subject
	 * @param limit the most entries to read
	 * @return the entries
	 * @throws IOException when the server cannot be asked
	 * @throws JetStreamApiException when the server refuses
	 */
	public List<DeadLetterEntry> read(String subject, long limit) throws IOException, JetStreamApiException {
		return messages(subject, 1, limit).stream().map(DeadLetters::entry).toList();
	}

	/**
	 * Reads the dead letters on a subject, oldest first.
	 * @param subject the dead-letter subject
	 * @param fromSequence the first dead-letter stream sequence to look at
	 * @param limit the most messages to read
	 * @return the messages, empty when the stream does not exist
	 * @throws IOException when the server cannot be asked
	 * @throws JetStreamApiException when the server refuses
	 */
	public List<MessageInfo> messages(String subject, long fromSequence, long limit)
			throws IOException, JetStreamApiException {
		JetStreamManagement management = this.connection.jetStreamManagement();
		List<MessageInfo> messages = new ArrayList<>();
		long sequence = Math.max(1, fromSequence);
		while (messages.size() < limit) {
			MessageInfo message;
			try {
				message = management.getMessage(this.stream, MessageGetRequest.nextForSubject(sequence, subject));
			}
			catch (JetStreamApiException ex) {
				if (isGone(ex)) {
					break;
				}
				throw ex;
			}
			messages.add(message);
			sequence = message.getSeq() + 1;
		}
		return messages;
	}

	/**
	 * Reads one dead letter.
	 * @param sequence its sequence in the dead-letter stream
	 * @return the message, or empty when there is none at that sequence (removed, or no stream)
	 * @throws IOException when the server cannot be asked
	 * @throws JetStreamApiException when the server refuses
	 */
	public Optional<MessageInfo> message(long sequence) throws IOException, JetStreamApiException {
		try {
			return Optional.of(this.connection.jetStreamManagement().getMessage(this.stream, sequence));
		}
		catch (JetStreamApiException ex) {
			if (isGone(ex)) {
				return Optional.empty();
			}
			throw ex;
		}
	}

	/**
	 * Removes one dead letter.
	 * @param sequence its sequence in the dead-letter stream
	 * @return {@code true} when this call removed it, {@code false} when it was gone already
	 * @throws IOException when the server cannot be asked
	 * @throws JetStreamApiException when the server refuses
	 */
	public boolean remove(long sequence) throws IOException, JetStreamApiException {
		try {
			return this.connection.jetStreamManagement().deleteMessage(this.stream, sequence);
		}
		catch (JetStreamApiException ex) {
			// the server names a missing message with another code for deletes than for reads
			if (isGone(ex) || message(sequence).isEmpty()) {
				return false;
			}
			throw ex;
		}
	}

	private static boolean isGone(JetStreamApiException ex) {
		return ex.getApiErrorCode() == NO_MESSAGE_FOUND || ex.getApiErrorCode() == STREAM_NOT_FOUND;
	}

	private static DeadLetterEntry entry(MessageInfo message) {
		Headers headers = (message.getHeaders() != null) ? message.getHeaders() : new Headers();
		String prefix = DeadLetterPublisher.HEADER_PREFIX;
		String sequence = headers.getFirst(prefix + "Stream-Sequence");
		String timestamp = headers.getFirst(prefix + "Timestamp");
		Instant at = (timestamp != null) ? Instant.parse(timestamp) : message.getTime().toInstant();
		return new DeadLetterEntry(headers.getFirst(prefix + "Stream"), headers.getFirst(prefix + "Consumer"),
				(sequence != null) ? Long.parseLong(sequence) : 0, headers.getFirst(prefix + "Key"),
				headers.getFirst(prefix + "Reason"), at);
	}

}
