package dev.exactlyonce.listener;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.nats.client.impl.Headers;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import dev.exactlyonce.nats.HeaderEncoding;

/**
 * Resolves a delivery's idempotency key: the {@code Nats-Msg-Id} header (of a requeued copy: the
 * original's, kept in {@value #ORIGINAL_MESSAGE_ID_HEADER}), or the listener's key expression
 * evaluated over {@code payload}, {@code headers} and {@code subject} in a read-only context (no
 * type references, no bean access). Header values are read as sent: percent-encoded ones (see
 * {@link HeaderEncoding}) are decoded first.
 */
public final class KeyResolver {

	/** The header holding a message's id, which is the key of a listener without a key expression. */
	public static final String MESSAGE_ID_HEADER = "Nats-Msg-Id";

	/**
	 * The message id of the message a copy was made of (a requeued copy, see {@link Requeue}, or an
	 * operator's replay or resubmit): a listener without a key expression takes it as the key.
	 */
	public static final String ORIGINAL_MESSAGE_ID_HEADER = "Exactly-Once-Original-Msg-Id";

	KeyResolver() {
	}

	private final EvaluationContext evaluationContext = SimpleEvaluationContext.forReadOnlyDataBinding()
		.withInstanceMethods()
		.build();

	/**
	 * The delivery's key. The payload is read only when the listener has a key expression, so a
	 * listener keyed by {@code Nats-Msg-Id} never parses a body it does not take.
	 */
	String resolve(Delivery delivery, Supplier<Object> payload) {
		ListenerEndpoint endpoint = delivery.endpoint();
		if (endpoint.keyExpression() == null) {
			String messageId = HeaderEncoding.first(delivery.headers(), ORIGINAL_MESSAGE_ID_HEADER);
			if (messageId == null || messageId.isBlank()) {
				messageId = HeaderEncoding.first(delivery.headers(), MESSAGE_ID_HEADER);
			}
			if (messageId == null || messageId.isBlank()) {
				throw new PoisonMessageException(
						"Message at " + delivery.describe() + " has no " + MESSAGE_ID_HEADER
								+ " header and listener " + endpoint.describe() + " has no key expression",
						"Publish it with ExactlyOncePublisher (or a " + MESSAGE_ID_HEADER
								+ " header), or set key on @ExactlyOnceListener",
						null);
			}
			return messageId;
		}
		String expression = endpoint.keyExpression().getExpressionString();
		Object key;
		try {
			key = endpoint.keyExpression().getValue(this.evaluationContext, new KeyRoot(payload.get(), firstValues(delivery.headers()), delivery.subject()));
		}
		catch (EvaluationException ex) {
			throw new PoisonMessageException("Key expression '" + expression + "' of listener " + endpoint.describe()
					+ " failed on the message at " + delivery.describe() + ": " + ex.getMessage(),
					"Fix the key attribute of @ExactlyOnceListener or the publisher's payload", ex);
		}
		if (key == null || key.toString().isBlank()) {
			throw new PoisonMessageException("Key expression '" + expression + "' of listener " + endpoint.describe()
					+ " gave an empty key for the message at " + delivery.describe(),
					"Make the publisher set the fields the key attribute of @ExactlyOnceListener reads", null);
		}
		return key.toString();
	}

	private static Map<String, String> firstValues(Headers headers) {
		Map<String, String> values = new LinkedHashMap<>();
		HeaderEncoding.decoded(headers).forEach((name, all) -> values.put(name, all.isEmpty() ? null : all.get(0)));
		return values;
	}

	/**
	 * The root object of key expressions.
	 * @param payload the payload, as the listener's payload parameter or a map
	 * @param headers the first value of each header
	 * @param subject the subject
	 */
	record KeyRoot(Object payload, Map<String, String> headers, String subject) {
	}

}
