package dev.exactlyonce.nats;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.nats.client.support.IncomingHeadersProcessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the tolerant parsing of a stored message's raw header block (what any client can put on a
 * stream): it never throws, and what it makes is a message the Java client can write again (the
 * dead letter of a message the client could not read), keeping the body byte for byte. Runs the
 * checked-in seeds in every build; {@code JAZZER_FUZZ=1} fuzzes (see docs/security.md).
 */
class RawStreamMessageFuzzTests {

	@FuzzTest(maxDuration = "2m")
	void anyHeaderBlockBecomesAMessageTheClientCanWrite(FuzzedDataProvider data) {
		byte[] prefix = data.consumeBoolean() ? "NATS/1.0\r\n".getBytes(StandardCharsets.US_ASCII)
				: new byte[0];
		byte[] block = concat(prefix, data.consumeBytes(data.consumeInt(0, 2000)));
		byte[] body = data.consumeRemainingAsBytes();
		RawStreamMessage stored = new RawStreamMessage("tasks.a", 1, block, body);

		stored.decodableByClient();
		Message message = stored.toMessage();

		assertThat(message.getData()).isEqualTo(body);
		Headers headers = message.getHeaders();
		if (headers != null && !headers.isEmpty()) {
			byte[] wire = NatsMessage.builder().subject("deadletter.x").headers(headers).data(body).build().getHeaders()
				.getSerialized();
			assertThat(new IncomingHeadersProcessor(wire).getHeaders().size()).isEqualTo(headers.size());
		}
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] all = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, all, first.length, second.length);
		return all;
	}

}
