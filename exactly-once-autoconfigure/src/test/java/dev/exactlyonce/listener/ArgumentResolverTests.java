package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A payload the listener's parameter cannot hold is poison (dead-lettered), never handed over
 * half-read: nothing undecodable reaches the handler.
 */
class ArgumentResolverTests {

	@Test
	void deeplyNestedJsonIsPoisonNotAStackOverflow() throws Exception {
		byte[] body = ("[".repeat(100_000) + "]".repeat(100_000)).getBytes(StandardCharsets.US_ASCII);

		assertThatExceptionOfType(PoisonMessageException.class)
			.isThrownBy(() -> resolver("handleMap", Map.class).payload(delivery(body)))
			.withMessageContaining("sequence 7");
	}

	@Test
	void aJsonNullPayloadIsPoisonNotANullArgument() throws Exception {
		byte[] body = " null ".getBytes(StandardCharsets.US_ASCII);

		assertThatExceptionOfType(PoisonMessageException.class)
			.isThrownBy(() -> resolver("handleMap", Map.class).payload(delivery(body)))
			.withMessageContaining("null");
	}

	@Test
	void aStringPayloadThatIsNotUtf8IsPoison() throws Exception {
		byte[] body = { 't', (byte) 0xFF, 'x' };

		assertThatExceptionOfType(PoisonMessageException.class)
			.isThrownBy(() -> resolver("handleString", String.class).payload(delivery(body)))
			.withMessageContaining("UTF-8")
			.withMessageContaining("byte[]");
	}

	@Test
	void aStringPayloadKeepsValidUtf8AsItIs() throws Exception {
		byte[] body = "tâche \uFFFD 🚀".getBytes(StandardCharsets.UTF_8);

		assertThat(resolver("handleString", String.class).payload(delivery(body))).isEqualTo("tâche \uFFFD 🚀");
	}

	@Test
	void aBytePayloadIsHandedOverAsSent() throws Exception {
		byte[] body = { (byte) 0xFF, 0 };

		assertThat(resolver("handleBytes", byte[].class).payload(delivery(body))).isEqualTo(body);
	}

	private static ArgumentResolver resolver(String method, Class<?> parameter) throws Exception {
		return new ArgumentResolver(Listener.class.getDeclaredMethod(method, parameter), JsonMapper.builder().build());
	}

	static Delivery delivery(byte[] body) throws Exception {
		NatsMessage message = NatsMessage.builder()
			.subject("agents.tasks")
			.headers(new Headers().put("Nats-Msg-Id", "m-1"))
			.data(body)
			.build();
		ListenerEndpoint endpoint = new ListenerEndpoint("worker", "worker", null, new Listener(),
				Listener.class.getDeclaredMethod("handleBytes", byte[].class), "listener");
		ConsumerSettings settings = new ConsumerSettings("worker", "TASKS", Duration.ofSeconds(30),
				Duration.ofSeconds(10), Duration.ofMinutes(2), List.of(), Duration.ofSeconds(5), 5, 1,
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of(), null);
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	static class Listener {

		void handleMap(Map<String, Object> payload) {
		}

		void handleString(String payload) {
		}

		void handleBytes(byte[] payload) {
		}

	}

}
