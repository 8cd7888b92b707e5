package dev.exactlyonce.nats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import io.nats.client.support.JsonValueUtils;

/**
 * Reads stored messages through the stream's raw message API ({@code $JS.API.STREAM.MSG.GET}),
 * whose answer carries the headers base64-encoded, so that a message whose headers the Java
 * client cannot decode can still be read (the client's own {@code getMessage} parses the headers
 * and fails on them).
 */
public class RawStreamReader {

	private static final int NO_MESSAGE_FOUND = 10037;

	private final Connection connection;

	private final Duration timeout;

	/**
	 * Creates the reader.
	 * @param connection the NATS connection
	 * @param timeout how long to wait for each answer
	 */
	public RawStreamReader(Connection connection, Duration timeout) {
		this.connection = connection;
		this.timeout = timeout;
	}

	/**
	 * Reads the message at a sequence.
	 * @param stream the stream
	 * @param sequence the stream sequence
	 * @return the message, or empty when the stream no longer holds it
	 * @throws IOException when the server did not answer or answered with another error
	 */
	public Optional<RawStreamMessage> read(String stream, long sequence) throws IOException {
		return get(stream, MessageGetRequest.forSequence(sequence));
	}

	/**
	 * Reads the first message at or after a sequence whose subject matches a filter.
	 * @param stream the stream
	 * @param sequence the first stream sequence to look at
	 * @param subjectFilter a subject, wildcards allowed
	 * @return the message, or empty when there is none
	 * @throws IOException when the server did not answer or answered with another error
	 */
	public Optional<RawStreamMessage> next(String stream, long sequence, String subjectFilter) throws IOException {
		return get(stream, MessageGetRequest.nextForSubject(sequence, subjectFilter));
	}

	private Optional<RawStreamMessage> get(String stream, MessageGetRequest request) throws IOException {
		JsonValue answer = parse(request(stream, request.toJson().getBytes(StandardCharsets.UTF_8)), stream);
		JsonValue error = JsonValueUtils.readValue(answer, "error");
		if (error != null) {
			if (JsonValueUtils.readInteger(error, "err_code", 0) == NO_MESSAGE_FOUND) {
				return Optional.empty();
			}
			throw new IOException("Stream '" + stream + "' refused to return a message: " + error.toJson());
		}
		JsonValue message = JsonValueUtils.readValue(answer, "message");
		if (message == null) {
			throw new IOException("Stream '" + stream + "' answered a message request without a message");
		}
		return Optional.of(new RawStreamMessage(JsonValueUtils.readString(message, "subject"),
				JsonValueUtils.readLong(message, "seq", 0), base64(JsonValueUtils.readString(message, "hdrs")),
				base64(JsonValueUtils.readString(message, "data"))));
	}

	private byte[] request(String stream, byte[] body) throws IOException {
		CompletableFuture<Message> reply = this.connection.request("$JS.API.STREAM.MSG.GET." + stream, body);
		try {
			return reply.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS).getData();
		}
		catch (TimeoutException | ExecutionException ex) {
			reply.cancel(true);
			throw new IOException("No answer from stream '" + stream + "' to a message request within " + this.timeout,
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("Interrupted while reading from stream '" + stream + "'", ex);
		}
	}

	private static JsonValue parse(byte[] json, String stream) throws IOException {
		try {
			return JsonParser.parse(json);
		}
		catch (JsonParseException ex) {
			throw new IOException("Stream '" + stream + "' answered a message request with invalid JSON", ex);
		}
	}

	private static byte[] base64(String value) {
		return (value != null) ? Base64.getDecoder().decode(value) : new byte[0];
	}

}
