package dev.exactlyonce.operations;

import java.io.IOException;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;

import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.listener.KeyResolver;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.ServerDirectives;

/**
 * Publishes an operator's copy of a stored message (a dead letter, or a task still on its stream)
 * to a task subject: its payload byte for byte and its headers without the {@code Nats-*}
 * instructions and the dead-letter headers, under a deterministic message id, with the task's key
 * in {@value KeyResolver#ORIGINAL_MESSAGE_ID_HEADER} (unless the message already names the message
 * id it was first published with), so a listener without a key expression runs the copy under the
 * task's key. Publishing the same copy twice stores it once inside the stream's duplicate window.
 */
public class Republisher {

	private static final List<String> DEAD_LETTER_HEADERS = List.of("Original-Subject", "Stream", "Consumer",
			"Stream-Sequence", "Deliveries", "Key", "Reason", "Exception", "Exception-Message", "Timestamp", "Trimmed");

	private final Connection connection;

	/**
	 * Creates the republisher.
	 * @param connection the NATS connection
	 */
	public Republisher(Connection connection) {
		this.connection = connection;
	}

	/**
	 * Publishes the copy.
	 * @param stored the stored message
	 * @param subject the task subject
	 * @param stream the stream that must store it
	 * @param key the task's key, without namespace
	 * @param messageId the copy's message id
	 * @return the server's answer (sequence, and whether it was a duplicate)
	 * @throws OperationRefusedException when the stream refused the copy (not stored) or did not
	 * answer (the copy may have been stored)
	 */
	public PublishAck publish(MessageInfo stored, String subject, String stream, String key, String messageId) {
		return publish(stored.getHeaders(), stored.getData(), subject, stream, key, messageId);
	}

	/**
	 * Publishes a copy of a message given by its headers and data.
	 * @param storedHeaders the stored message's headers, or {@code null}
	 * @param data its data
	 * @param subject the task subject
	 * @param stream the stream that must store it
	 * @param key the task's key, without namespace
	 * @param messageId the copy's message id
	 * @return the server's answer (sequence, and whether it was a duplicate)
	 * @throws OperationRefusedException when the stream refused the copy or did not answer
	 */
	public PublishAck publish(Headers storedHeaders, byte[] data, String subject, String stream, String key,
			String messageId) {
		Headers headers = (storedHeaders != null) ? new Headers(storedHeaders) : new Headers();
		ServerDirectives.remove(headers);
		DEAD_LETTER_HEADERS.forEach((name) -> HeaderEncoding.remove(headers, DeadLetterPublisher.HEADER_PREFIX + name));
		HeaderEncoding.put(headers, KeyResolver.MESSAGE_ID_HEADER, messageId);
		if (HeaderEncoding.first(headers, KeyResolver.ORIGINAL_MESSAGE_ID_HEADER) == null) {
			HeaderEncoding.put(headers, KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, key);
		}
		NatsMessage copy = NatsMessage.builder().subject(subject).headers(headers).data(data).build();
		try {
			return this.connection.jetStream().publish(copy, PublishOptions.builder().expectedStream(stream).build());
		}
		catch (JetStreamApiException ex) {
			throw OperationRefusedException.unavailable("Copy '" + messageId + "' was not stored on stream '" + stream
					+ "' (subject '" + subject + "'): " + ex.getMessage() + ". Ask again: the copy keeps its "
					+ "message id, so the stream stores it once", ex);
		}
		catch (IOException | RuntimeException ex) {
			// no answer: the stream may have stored the copy, which may run already
			throw OperationRefusedException.unavailable("NATS did not answer whether stream '" + stream + "' stored copy '"
					+ messageId + "' (subject '" + subject + "'): " + ex.getMessage() + ". It may have been stored "
					+ "and may run; asking again publishes the same copy under its message id, which the stream "
					+ "stores once", ex);
		}
	}

}
