package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import tools.jackson.databind.json.JsonMapper;

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
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of());
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	static class Listener {

		void handleContextOnly(ExactlyOnceContext context) {
		}

	}

}
