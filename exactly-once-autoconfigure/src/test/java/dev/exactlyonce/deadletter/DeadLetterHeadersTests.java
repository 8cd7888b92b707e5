package dev.exactlyonce.deadletter;

import java.time.Instant;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.RawStreamMessage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dead letter's reason and exception message are kept whole when they are as long as the starter's
 * own explanations (the fix they name comes last), and a longer text is cut at a word with an ellipsis.
 */
class DeadLetterHeadersTests {

	private static final String FIX = " or declare the step with the probe that finds its result.";

	@Test
	void aLongReasonAndMessageAreKeptWholeWithTheFixTheyNameLast() {
		String text = "x".repeat(900) + FIX;
		Headers headers = headers(text);
		assertThat(HeaderEncoding.first(headers, "Exactly-Once-Reason")).isEqualTo(text);
		assertThat(HeaderEncoding.first(headers, "Exactly-Once-Exception-Message")).isEqualTo(text);
	}

	@Test
	void aTextBeyondTheLimitIsCutAtAWordWithAnEllipsis() {
		String text = "word ".repeat(2000);
		String reason = HeaderEncoding.first(headers(text), "Exactly-Once-Reason");
		assertThat(reason).endsWith("word …").hasSizeLessThan(4100);
	}

	private static Headers headers(String text) {
		Message original = new RawStreamMessage("tasks.a", 42, new byte[0], new byte[] { '{', '}' }).toMessage();
		DeadLetter deadLetter = new DeadLetter(original, "deadletter.TASKS.worker", "TASKS", "worker", 42, 3, "t-1", text,
				new IllegalStateException(text));
		return DeadLetterHeaders.of(deadLetter, Instant.EPOCH, new DeadLetterSizeLimit.Limit(1_000_000, "test"));
	}

}
