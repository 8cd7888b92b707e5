package dev.exactlyonce.deadletter;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.support.IncomingHeadersProcessor;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.RawStreamMessage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes dead-letter header building with any original headers (as stored by any client), key,
 * reason, exception message and size limit: it either refuses with a {@link DeadLetterException}
 * because the original alone does not fit, or makes headers the Java client writes, within the
 * limit, that say where the message came from. Runs the checked-in seeds in every build;
 * {@code JAZZER_FUZZ=1} fuzzes (see docs/security.md).
 */
class DeadLetterHeadersFuzzTests {

	@FuzzTest(maxDuration = "2m")
	void anyOriginalGetsDeadLetterHeadersWithinTheLimitOrARefusal(FuzzedDataProvider data) {
		byte[] block = data.consumeBytes(data.consumeInt(0, 1500));
		String key = data.consumeBoolean() ? data.consumeString(300) : null;
		String reason = data.consumeString(700);
		String exceptionMessage = data.consumeBoolean() ? data.consumeString(700) : null;
		long limit = data.consumeLong(100, 5000);
		byte[] body = data.consumeRemainingAsBytes();
		Message original = new RawStreamMessage("tasks.a", 42, block, body).toMessage();
		DeadLetter deadLetter = new DeadLetter(original, "deadletter.TASKS.worker", "TASKS", "worker", 42, 3, key,
				reason, (exceptionMessage != null) ? new IllegalStateException(exceptionMessage) : null);
		Headers headers;
		try {
			headers = DeadLetterHeaders.of(deadLetter, Instant.EPOCH, new DeadLetterSizeLimit.Limit(limit, "test"));
		}
		catch (DeadLetterException ex) {
			assertThat(ex.getMessage()).contains("sequence 42").contains("above the limit of " + limit);
			return;
		}
		byte[] wire = headers.getSerialized();
		assertThat((long) wire.length + body.length).isLessThanOrEqualTo(limit);
		Headers parsed = new IncomingHeadersProcessor(wire).getHeaders();
		assertThat(parsed.getFirst("Nats-Msg-Id")).isEqualTo("dl-TASKS-42");
		assertThat(HeaderEncoding.first(parsed, "Exactly-Once-Stream-Sequence")).isEqualTo("42");
		assertThat(HeaderEncoding.first(parsed, "Exactly-Once-Reason")).isNotNull();
		assertThat(new String(wire, StandardCharsets.US_ASCII)).doesNotContain("\r\nNats-Expected");
	}

}
