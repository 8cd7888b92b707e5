package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.nats.HeaderEncoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Key resolution reads the payload only when the listener's key needs it.
 */
class KeyResolverTests {

	private final KeyResolver keys = new KeyResolver();

	@Test
	void messageIdKeyNeverReadsTheBody() throws Exception {
		Delivery delivery = delivery("not json at all", null, "handleContextOnly", ExactlyOnceContext.class);
		ArgumentResolver arguments = arguments("handleContextOnly", ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, null))).isEqualTo("m-1");
	}

	@Test
	void keyExpressionReadsTheBodyAsAMapWhenTheMethodTakesNoPayload() throws Exception {
		Delivery delivery = delivery("{\"taskId\":\"t-9\"}", "payload['taskId'] + ':' + subject", "handleContextOnly",
				ExactlyOnceContext.class);
		ArgumentResolver arguments = arguments("handleContextOnly", ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, null)))
			.isEqualTo("t-9:agents.marketing.tasks.blog-post");
	}

	@Test
	void keyExpressionOverAnUnreadableBodyIsPoison() throws Exception {
		Delivery delivery = delivery("not json", "payload['taskId']", "handleContextOnly", ExactlyOnceContext.class);
		ArgumentResolver arguments = arguments("handleContextOnly", ExactlyOnceContext.class);

		assertThatExceptionOfType(PoisonMessageException.class)
			.isThrownBy(() -> this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, null)))
			.withMessageContaining("sequence 7")
			.withMessageNotContaining("not json");
	}

	@Test
	void requeuedCopyKeepsTheKeyOfItsOriginalMessageId() throws Exception {
		Headers headers = new Headers().put("Nats-Msg-Id", "requeue-TASKS-7").put("Exactly-Once-Original-Msg-Id", "m-1");
		Delivery delivery = delivery(headers, "{}", null, "handleContextOnly", ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> null)).isEqualTo("m-1");
	}

	@Test
	void keyExpressionSeesTheHeadersOfARequeuedCopyAsTheyAre() throws Exception {
		Headers headers = new Headers().put("Nats-Msg-Id", "requeue-TASKS-7").put("Exactly-Once-Original-Msg-Id", "m-1");
		Delivery delivery = delivery(headers, "{}", "headers['Nats-Msg-Id']", "handleContextOnly",
				ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> null)).isEqualTo("requeue-TASKS-7");
	}

	@Test
	void messageIdsThatAreNotUtf8ArePoisonNotTheSameKey() throws Exception {
		for (byte invalid : new byte[] { (byte) 0xFF, (byte) 0xFE, (byte) 0xC3 }) {
			Headers headers = new Headers();
			HeaderEncoding.put(headers, "Nats-Msg-Id".getBytes(StandardCharsets.US_ASCII), List.of(new byte[] { 't', invalid }));
			Delivery delivery = delivery(headers, "{}", null, "handleContextOnly", ExactlyOnceContext.class);

			assertThatExceptionOfType(PoisonMessageException.class).isThrownBy(() -> this.keys.resolve(delivery, () -> null))
				.withMessageContaining("Nats-Msg-Id")
				.withMessageContaining("UTF-8");
		}
	}

	@Test
	void aValidReplacementCharacterInTheMessageIdIsAKeyOfItsOwn() throws Exception {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "Nats-Msg-Id", "t\uFFFD");
		Delivery delivery = delivery(headers, "{}", null, "handleContextOnly", ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> null)).isEqualTo("t\uFFFD");
	}

	@Test
	void keyExpressionOverAHeaderThatIsNotUtf8IsPoison() throws Exception {
		Headers headers = new Headers().put("Nats-Msg-Id", "m-1");
		HeaderEncoding.put(headers, "X-Task".getBytes(StandardCharsets.US_ASCII), List.of(new byte[] { 't', (byte) 0x80 }));
		Delivery delivery = delivery(headers, "{}", "headers['X-Task']", "handleContextOnly", ExactlyOnceContext.class);

		assertThatExceptionOfType(PoisonMessageException.class).isThrownBy(() -> this.keys.resolve(delivery, () -> null))
			.withMessageContaining("X-Task")
			.withMessageContaining("UTF-8");
	}

	@Test
	void keyExpressionIgnoresAHeaderThatIsNotUtf8WhenItDoesNotReadIt() throws Exception {
		Headers headers = new Headers().put("Nats-Msg-Id", "m-1");
		HeaderEncoding.put(headers, "X-Other".getBytes(StandardCharsets.US_ASCII), List.of(new byte[] { (byte) 0x80 }));
		Delivery delivery = delivery(headers, "{}", "headers['Nats-Msg-Id']", "handleContextOnly", ExactlyOnceContext.class);

		assertThat(this.keys.resolve(delivery, () -> null)).isEqualTo("m-1");
	}

	@Test
	void keyWithALoneSurrogateFromAJsonEscapeIsPoisonNotTheSameKeyAsAQuestionMark() throws Exception {
		Delivery delivery = delivery("{\"taskId\":\"t-\\ud800\"}", "payload['taskId']", "handleContextOnly",
				ExactlyOnceContext.class);
		ArgumentResolver arguments = arguments("handleContextOnly", ExactlyOnceContext.class);

		assertThatExceptionOfType(PoisonMessageException.class)
			.isThrownBy(() -> this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, null)))
			.withMessageContaining("surrogate");
	}

	@Test
	void keysThatDifferOnlyByCaseOrUnicodeNormalisationStayDistinct() throws Exception {
		List<String> ids = List.of("Task-1", "task-1", "TASK-1", "caf\u00E9", "cafe\u0301", "ﬁ", "fi");
		Set<String> keys = new HashSet<>();
		for (String id : ids) {
			Headers headers = new Headers();
			HeaderEncoding.put(headers, "Nats-Msg-Id", id);
			keys.add(this.keys.resolve(delivery(headers, "{}", null, "handleContextOnly", ExactlyOnceContext.class),
					() -> null));
		}
		assertThat(keys).containsExactlyInAnyOrderElementsOf(ids);
	}

	@Test
	void aPercentEncodedMessageIdIsTheSameKeyAsThePlainOne() throws Exception {
		Headers encoded = new Headers().put("Nats-Msg-Id", "%41").put(HeaderEncoding.ENCODED_HEADERS, "nats-msg-id");
		Headers plain = new Headers().put("Nats-Msg-Id", "A");

		assertThat(this.keys.resolve(delivery(encoded, "{}", null, "handleContextOnly", ExactlyOnceContext.class), () -> null))
			.isEqualTo(this.keys.resolve(delivery(plain, "{}", null, "handleContextOnly", ExactlyOnceContext.class), () -> null))
			.isEqualTo("A");
	}

	private static ArgumentResolver arguments(String method, Class<?>... parameters) throws Exception {
		return new ArgumentResolver(Listener.class.getDeclaredMethod(method, parameters), JsonMapper.builder().build());
	}

	private static Delivery delivery(String body, String keyExpression, String method, Class<?>... parameters)
			throws Exception {
		return delivery(new Headers().put("Nats-Msg-Id", "m-1"), body, keyExpression, method, parameters);
	}

	private static Delivery delivery(Headers headers, String body, String keyExpression, String method,
			Class<?>... parameters) throws Exception {
		NatsMessage message = NatsMessage.builder()
			.subject("agents.marketing.tasks.blog-post")
			.headers(headers)
			.data(body.getBytes(StandardCharsets.UTF_8))
			.build();
		ListenerEndpoint endpoint = new ListenerEndpoint("worker", "worker",
				(keyExpression != null) ? new SpelExpressionParser().parseExpression(keyExpression) : null,
				new Listener(), Listener.class.getDeclaredMethod(method, parameters), "listener");
		ConsumerSettings settings = new ConsumerSettings("worker", "TASKS", Duration.ofSeconds(30),
				Duration.ofSeconds(10), Duration.ofMinutes(2), List.of(), Duration.ofSeconds(5), 5, 1,
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of(), null);
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	static class Listener {

		void handleContextOnly(ExactlyOnceContext context) {
		}

	}

}
