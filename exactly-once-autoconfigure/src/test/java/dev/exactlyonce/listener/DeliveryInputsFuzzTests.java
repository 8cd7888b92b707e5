package dev.exactlyonce.listener;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.nats.client.support.IncomingHeadersProcessor;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.store.StoreKeyEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes what a delivery from any client goes through before the handler: header parsing by the
 * Java client, key resolution (by {@code Nats-Msg-Id} or key expressions over payload and headers)
 * and payload binding. Every input ends in a key and a payload of the parameter's type, or in a
 * {@link PoisonMessageException} (a dead letter); nothing else is thrown, no key is unfit for a
 * store, and different message ids never share a key. Runs the checked-in seeds in every build;
 * {@code JAZZER_FUZZ=1} fuzzes (see docs/security.md).
 */
class DeliveryInputsFuzzTests {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final StoreKeyEncoder KV_KEYS = new StoreKeyEncoder(255);

	private static final List<Variant> VARIANTS = List.of(new Variant("handleTask", Task.class, null),
			new Variant("handleTask", Task.class, "payload.taskId() + ':' + payload.version()"),
			new Variant("handleMap", Map.class, "payload['taskId']"),
			new Variant("handleString", String.class, "headers['X-Task'] + '/' + subject"),
			new Variant("handleBytes", byte[].class, null));

	private final KeyResolver keys = new KeyResolver();

	@FuzzTest(maxDuration = "2m")
	void everyDeliveryEndsInAKeyAndAPayloadOrPoison(FuzzedDataProvider data) throws Exception {
		Variant variant = data.pickValue(VARIANTS);
		byte[] block = concat("NATS/1.0\r\n".getBytes(StandardCharsets.US_ASCII),
				data.consumeBytes(data.consumeInt(0, 1000)), "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
		Headers headers;
		try {
			headers = new IncomingHeadersProcessor(block).getHeaders();
		}
		catch (RuntimeException ex) {
			return; // the client's reader stops on it: the undecodable sweep dead-letters it unread
		}
		Delivery delivery = delivery(variant, headers, data.consumeRemainingAsBytes());
		ArgumentResolver arguments = new ArgumentResolver(variant.method(), MAPPER);
		Object payload;
		String key;
		try {
			payload = arguments.payload(delivery);
			key = this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, payload));
		}
		catch (PoisonMessageException ex) {
			return;
		}
		assertThat(payload).isInstanceOf(variant.payloadType());
		assertThat(key).isNotBlank();
		assertThat(KV_KEYS.encode("worker:" + key)).isNotEmpty();
	}

	@FuzzTest(maxDuration = "2m")
	void differentMessageIdsNeverShareAKey(FuzzedDataProvider data) throws Exception {
		byte[] first = data.consumeBytes(data.consumeInt(1, 200));
		byte[] second = data.consumeRemainingAsBytes();
		String firstKey = keyOf(first);
		String secondKey = keyOf(second);
		if (firstKey != null && secondKey != null) {
			assertThat(firstKey.equals(secondKey)).as("one key for two ids").isEqualTo(Arrays.equals(first, second));
		}
	}

	private String keyOf(byte[] messageId) throws Exception {
		if (messageId.length == 0) {
			return null;
		}
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "Nats-Msg-Id".getBytes(StandardCharsets.US_ASCII), List.of(messageId));
		Headers received = new IncomingHeadersProcessor(headers.getSerialized()).getHeaders();
		try {
			return this.keys.resolve(delivery(VARIANTS.get(0), received, new byte[0]), () -> null);
		}
		catch (PoisonMessageException ex) {
			return null;
		}
	}

	private static Delivery delivery(Variant variant, Headers headers, byte[] body) {
		NatsMessage message = NatsMessage.builder().subject("agents.tasks").headers(headers).data(body).build();
		ListenerEndpoint endpoint = new ListenerEndpoint("worker", "worker",
				(variant.keyExpression() != null) ? new SpelExpressionParser().parseExpression(variant.keyExpression())
						: null,
				new Listener(), variant.method(), "listener");
		ConsumerSettings settings = new ConsumerSettings("worker", "TASKS", Duration.ofSeconds(30),
				Duration.ofSeconds(10), Duration.ofMinutes(2), List.of(), Duration.ofSeconds(5), 5, 1,
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of(), null);
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	private static byte[] concat(byte[]... parts) {
		ByteArrayOutputStream all = new ByteArrayOutputStream();
		for (byte[] part : parts) {
			all.writeBytes(part);
		}
		return all.toByteArray();
	}

	/**
	 * One listener shape.
	 * @param methodName the listener method
	 * @param payloadType its payload parameter's type
	 * @param keyExpression its key expression, or {@code null} for {@code Nats-Msg-Id}
	 */
	record Variant(String methodName, Class<?> payloadType, String keyExpression) {

		Method method() {
			try {
				return Listener.class.getDeclaredMethod(this.methodName, this.payloadType);
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	/**
	 * A task payload.
	 * @param taskId the task
	 * @param version its version
	 * @param steps nested data
	 */
	record Task(String taskId, int version, List<Map<String, Object>> steps) {
	}

	static class Listener {

		void handleTask(Task task) {
		}

		void handleMap(Map<String, Object> payload) {
		}

		void handleString(String payload) {
		}

		void handleBytes(byte[] payload) {
		}

	}

}
