package dev.exactlyonce.deadletter;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.impl.Headers;

import dev.exactlyonce.listener.logging.HandlerFailureLog;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.ServerDirectives;

/**
 * Builds a dead letter's headers: the original's (without its {@code Nats-*} instructions), the
 * {@code Exactly-Once-*} headers saying where it came from and why, each percent-encoded when the
 * Java client could not write it (see {@link HeaderEncoding}), and trimmed of the optional ones
 * until headers and body fit the size limit.
 */
final class DeadLetterHeaders {

	private static final String MESSAGE_ID = "Nats-Msg-Id";

	/** The longest reason or exception message kept whole: the starter's own reasons name their fix last. */
	private static final int MAX_TEXT = 4096;

	/** The starter's headers a dead letter can do without, dropped in this order when it is too large. */
	private static final List<String> OPTIONAL = List.of(DeadLetterPublisher.HEADER_PREFIX + "Exception-Message",
			DeadLetterPublisher.HEADER_PREFIX + "Key", DeadLetterPublisher.HEADER_PREFIX + "Exception",
			DeadLetterPublisher.HEADER_PREFIX + "Timestamp", DeadLetterPublisher.HEADER_PREFIX + "Deliveries");

	private DeadLetterHeaders() {
	}

	/**
	 * The headers of a dead letter.
	 * @param deadLetter what to park and why
	 * @param now the time of the timestamp header
	 * @param limit the largest dead letter (headers plus body) the server takes on its subject
	 * @return the headers, fitting the limit with the body
	 * @throws DeadLetterException when the original alone does not fit
	 */
	static Headers of(DeadLetter deadLetter, Instant now, DeadLetterSizeLimit.Limit limit) {
		return fitting(headers(deadLetter, now), deadLetter, limit);
	}

	private static Headers headers(DeadLetter deadLetter, Instant now) {
		Headers headers = new Headers(deadLetter.original().getHeaders());
		ServerDirectives.remove(headers);
		HeaderEncoding.put(headers, MESSAGE_ID, "dl-" + deadLetter.stream() + "-" + deadLetter.streamSequence());
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Original-Subject", deadLetter.original().getSubject());
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Stream", deadLetter.stream());
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Consumer", deadLetter.consumer());
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Stream-Sequence", Long.toString(deadLetter.streamSequence()));
		if (deadLetter.deliveries() > 0) {
			HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Deliveries", Long.toString(deadLetter.deliveries()));
		}
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Reason", truncate(deadLetter.reason()));
		HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Timestamp", now.toString());
		if (deadLetter.key() != null) {
			HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Key", deadLetter.key());
		}
		if (deadLetter.failure() != null) {
			HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Exception", deadLetter.failure().getClass().getName());
			HeaderEncoding.put(headers, DeadLetterPublisher.HEADER_PREFIX + "Exception-Message",
					truncate(String.valueOf(HandlerFailureLog.messageOf(deadLetter.failure()))));
		}
		return headers;
	}

	/** Drops optional headers until the dead letter fits; fails when it cannot. */
	private static Headers fitting(Headers headers, DeadLetter deadLetter, DeadLetterSizeLimit.Limit limit) {
		int body = (deadLetter.original().getData() != null) ? deadLetter.original().getData().length : 0;
		List<String> dropped = new ArrayList<>();
		for (String optional : OPTIONAL) {
			if (headers.serializedLength() + body <= limit.bytes()) {
				break;
			}
			if (headers.containsKey(optional)) {
				HeaderEncoding.remove(headers, optional);
				dropped.add(optional);
				HeaderEncoding.put(headers, DeadLetterPublisher.TRIMMED, String.join(",", dropped));
			}
		}
		long size = headers.serializedLength() + body;
		if (size > limit.bytes()) {
			throw new DeadLetterException("Message at stream '" + deadLetter.stream() + "', consumer '"
					+ deadLetter.consumer() + "', sequence " + deadLetter.streamSequence()
					+ " does not fit in a dead letter: its body (" + body + " bytes) with its headers and the required "
					+ "dead-letter headers make " + size + " bytes, above the limit of " + limit.bytes() + " bytes on '"
					+ deadLetter.subject() + "' (" + limit.source() + "). It stays on "
					+ "its stream. Raise max_payload in the nats-server configuration (and the dead-letter stream's "
					+ "max_msg_size if set), or publish a reference to the data instead of the data.", null);
		}
		return headers;
	}

	/** One line of at most {@link #MAX_TEXT} characters; a longer text is cut after a word and ends in an ellipsis. */
	private static String truncate(String text) {
		String singleLine = text.replace('\r', ' ').replace('\n', ' ');
		if (singleLine.length() <= MAX_TEXT) {
			return singleLine;
		}
		int space = singleLine.lastIndexOf(' ', MAX_TEXT - 1);
		return singleLine.substring(0, (space > MAX_TEXT / 2) ? space + 1 : MAX_TEXT - 1) + "…";
	}

}
