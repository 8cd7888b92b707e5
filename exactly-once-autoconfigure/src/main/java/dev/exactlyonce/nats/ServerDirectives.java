package dev.exactlyonce.nats;

import java.util.ArrayList;

import io.nats.client.impl.Headers;

/**
 * The {@code Nats-*} headers of a stored message (message id, expected stream, expected sequences,
 * rollup...): instructions to the stream that stored it, which a stream storing a copy of it would
 * refuse or misread.
 */
public final class ServerDirectives {

	private ServerDirectives() {
	}

	/**
	 * Removes every {@code Nats-*} header (and its entry in
	 * {@value HeaderEncoding#ENCODED_HEADERS}).
	 * @param headers the headers to change
	 */
	public static void remove(Headers headers) {
		for (String name : new ArrayList<>(headers.keySet())) {
			if (name.regionMatches(true, 0, "Nats-", 0, 5)) {
				HeaderEncoding.remove(headers, name);
			}
		}
	}

}
