package dev.exactlyonce.waits;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;

import dev.exactlyonce.listener.KeyResolver;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.ServerDirectives;

/**
 * The tickets of suspended tasks, on a stream of their own: one subject per task
 * ({@code <prefix>.<SHA-256 of its store key>}) that keeps its latest ticket only, so a task that
 * suspends again replaces its earlier ticket. A ticket is the task's message (headers and data, to
 * publish again when it resumes) with the wait's {@link WaitTicket} headers; its message id is the
 * suspending attempt's fencing token, so a ticket published twice by one attempt is stored once.
 */
class WaitTickets {

	/** The API error of a stream read that found no message. */
	private static final int NO_MESSAGE_FOUND = 10037;

	private final Connection connection;

	private final WaitsSettings settings;

	WaitTickets(Connection connection, WaitsSettings settings) {
		this.connection = connection;
		this.settings = settings;
	}

	/**
	 * Stores a task's ticket.
	 * @throws WaitsUnavailableException when the stream did not store it
	 */
	void publish(WaitTicket ticket, Message task) {
		publish(ticket, task.getHeaders(), task.getData(), ticket.storeKey() + "/wait/" + ticket.token());
	}

	/**
	 * Stores a task's ticket again, for its waiting attempt, from another ticket of the task (one
	 * published by an attempt that had lost its claim replaced the waiting attempt's, whose message id
	 * may still be in the duplicate window: the copy gets its own).
	 * @param ticket the waiting attempt's ticket
	 * @param other the ticket found in its place
	 * @param otherSequence that ticket's stream sequence
	 */
	void reissue(WaitTicket ticket, Message other, long otherSequence) {
		Headers headers = (other.getHeaders() != null) ? new Headers(other.getHeaders()) : new Headers();
		WaitTicket.removeFrom(headers);
		publish(ticket, headers, other.getData(), ticket.storeKey() + "/wait/" + ticket.token() + "/over-" + otherSequence);
	}

	private void publish(WaitTicket ticket, Headers taskHeaders, byte[] data, String messageId) {
		Headers headers = (taskHeaders != null) ? new Headers(taskHeaders) : new Headers();
		ServerDirectives.remove(headers);
		ticket.writeTo(headers);
		HeaderEncoding.put(headers, KeyResolver.MESSAGE_ID_HEADER, messageId);
		NatsMessage message = NatsMessage.builder()
			.subject(subject(ticket.storeKey()))
			.headers(headers)
			.data(data)
			.build();
		try {
			this.connection.jetStream(options())
				.publish(message, PublishOptions.builder().expectedStream(this.settings.stream()).build());
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new WaitsUnavailableException("The ticket of task '" + ticket.storeKey() + "' (" + ticket.waitingFor()
					+ ") was not stored on stream '" + this.settings.stream() + "': " + ex.getMessage()
					+ "; the task is not suspended and its attempt is retried", ex);
		}
	}

	/**
	 * Reads a task's latest ticket.
	 * @return the ticket's message, or empty when the task has none
	 * @throws WaitsUnavailableException when the stream could not be read
	 */
	Optional<MessageInfo> latest(String storeKey) {
		try {
			return Optional.of(this.connection.jetStreamManagement(options())
				.getLastMessage(this.settings.stream(), subject(storeKey)));
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == NO_MESSAGE_FOUND) {
				return Optional.empty();
			}
			throw unreadable(storeKey, ex);
		}
		catch (IOException | RuntimeException ex) {
			throw unreadable(storeKey, ex);
		}
	}

	private WaitsUnavailableException unreadable(String storeKey, Exception ex) {
		return new WaitsUnavailableException("The ticket of task '" + storeKey + "' was not read from stream '"
				+ this.settings.stream() + "': " + ex.getMessage(), ex);
	}

	/** The subject of a task's tickets: a digest, so any key makes a valid, fixed-length subject token. */
	String subject(String storeKey) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(storeKey.getBytes(StandardCharsets.UTF_8));
			return this.settings.subjectPrefix() + "." + HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

	private JetStreamOptions options() {
		return JetStreamOptions.builder().requestTimeout(this.settings.requestTimeout()).build();
	}

}
