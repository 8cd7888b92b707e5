package dev.exactlyonce.benchmark;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;

import dev.exactlyonce.store.StoreKeyEncoder;

/**
 * Bulk-loads completed records into a NATS KV bucket: the stored message of the template record
 * (value and headers) is published again under other keys with JetStream's asynchronous publish,
 * at most {@value #WINDOW} unacknowledged. Each copy expects its key to be new
 * ({@code Nats-Expected-Last-Subject-Sequence: 0}, as the store's claim does), where the template's
 * stored completion names its claim's revision: a few digits more.
 */
final class NatsKvFiller {

	private static final int WINDOW = 4000;

	/** The longest key {@code NatsKvIdempotencyStore} encodes unhashed; the benchmark's keys are far shorter. */
	private static final int MAX_KEY_LENGTH = 512;

	private static final StoreKeyEncoder KEY_ENCODER = new StoreKeyEncoder(MAX_KEY_LENGTH);

	private final JetStream jetStream;

	private final String subjectPrefix;

	private final Headers headers;

	private final KeySlot value;

	private NatsKvFiller(JetStream jetStream, String subjectPrefix, Headers headers, KeySlot value) {
		this.jetStream = jetStream;
		this.subjectPrefix = subjectPrefix;
		this.headers = headers;
		this.value = value;
	}

	/**
	 * Reads the template record's stored message.
	 * @param connection the connection to publish on
	 * @param bucket the bucket
	 * @return the filler
	 * @throws IOException when the server cannot be reached
	 * @throws JetStreamApiException when the template record is missing
	 */
	static NatsKvFiller of(Connection connection, String bucket) throws IOException, JetStreamApiException {
		String subjectPrefix = "$KV." + bucket + ".";
		MessageInfo template = connection.jetStreamManagement()
			.getLastMessage("KV_" + bucket, subjectPrefix + KEY_ENCODER.encode(ScaleRecords.templateKey()));
		Headers headers = new Headers(template.getHeaders());
		headers.put(NatsJetStreamConstants.EXPECTED_LAST_SUB_SEQ_HDR, "0");
		return new NatsKvFiller(connection.jetStream(), subjectPrefix, headers,
				KeySlot.in(template.getData(), ScaleRecords.templateKey()));
	}

	/**
	 * The key under which the store keeps a record.
	 * @param key the idempotency key
	 * @return the bucket key
	 */
	static String bucketKey(String key) {
		return KEY_ENCODER.encode(key);
	}

	/**
	 * Writes the records of filled keys {@code from} up to {@code to}.
	 * @param from the first index
	 * @param to the index after the last
	 * @throws java.util.concurrent.CompletionException when the server refuses a record
	 */
	void fill(long from, long to) {
		Deque<CompletableFuture<PublishAck>> unacknowledged = new ArrayDeque<>(WINDOW);
		for (long index = from; index < to; index++) {
			if (unacknowledged.size() == WINDOW) {
				unacknowledged.removeFirst().join();
			}
			String key = ScaleRecords.filledKey(index);
			unacknowledged.addLast(this.jetStream.publishAsync(this.subjectPrefix + bucketKey(key),
					new Headers(this.headers), this.value.with(key)));
		}
		unacknowledged.forEach(CompletableFuture::join);
	}

	/**
	 * The template's size as published.
	 * @return value and header bytes
	 */
	String description() {
		return String.format(Locale.ROOT, "%d-byte JSON value, %d bytes of headers (%s)", this.value.with(ScaleRecords.templateKey()).length,
				this.headers.serializedLength(), String.join(", ", this.headers.keySet()));
	}

}
