package dev.exactlyonce.listener;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Decodes bytes from a message as UTF-8 only when they are UTF-8: Java's lenient decoding turns
 * every malformed sequence into U+FFFD, so two different inputs would become one text (one
 * idempotency key, one payload).
 */
final class StrictUtf8 {

	private StrictUtf8() {
	}

	/**
	 * Decodes bytes.
	 * @param bytes the bytes
	 * @return the text, or empty when the bytes are not well-formed UTF-8
	 */
	static Optional<String> decode(byte[] bytes) {
		try {
			CharBuffer text = StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes));
			return Optional.of(text.toString());
		}
		catch (CharacterCodingException ex) {
			return Optional.empty();
		}
	}

}
