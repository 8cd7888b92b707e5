package dev.exactlyonce.listener;

import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.store.StoreKeyEncoder;

/**
 * Resolves a delivery's idempotency key: the {@code Nats-Msg-Id} header (of a requeued copy: the
 * original's, kept in {@value #ORIGINAL_MESSAGE_ID_HEADER}), or the listener's key expression
 * evaluated over {@code payload}, {@code headers} and {@code subject} in a read-only context (no
 * type references, no bean access). Header values are read as sent: percent-encoded ones (see
 * {@link HeaderEncoding}) are decoded first. A key read from a header that is not UTF-8, or holding
 * a lone surrogate, is poison: lenient decoding would give different inputs the same key.
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
		String key = (endpoint.keyExpression() != null) ? evaluate(delivery, payload, endpoint.keyExpression(), "key")
				: messageId(delivery);
		int loneSurrogate = StoreKeyEncoder.loneSurrogateIndex(key);
		if (loneSurrogate >= 0) {
			throw new PoisonMessageException("The key of the message at " + delivery.describe() + " for listener "
					+ endpoint.describe() + " holds a lone surrogate at index " + loneSurrogate
					+ " (not well-formed Unicode: it would be the same store key as one spelled with '?')",
					"Fix the publisher's payload (a JSON string escape such as \\ud800 without its pair)", null);
		}
		return key;
	}

	/**
	 * The delivery's key within its listener's limit: empty when the listener has no limit key.
	 */
	String limitKey(Delivery delivery, Supplier<Object> payload) {
		Expression expression = delivery.endpoint().limitKeyExpression();
		return (expression != null) ? evaluate(delivery, payload, expression, "limitKey") : "";
	}

	private static String messageId(Delivery delivery) {
		String messageId = text(delivery, ORIGINAL_MESSAGE_ID_HEADER,
				HeaderEncoding.firstBytes(delivery.headers(), ORIGINAL_MESSAGE_ID_HEADER));
		if (messageId == null || messageId.isBlank()) {
			messageId = text(delivery, MESSAGE_ID_HEADER, HeaderEncoding.firstBytes(delivery.headers(), MESSAGE_ID_HEADER));
		}
		if (messageId == null || messageId.isBlank()) {
			throw new PoisonMessageException(
					"Message at " + delivery.describe() + " has no " + MESSAGE_ID_HEADER + " header and listener "
							+ delivery.endpoint().describe() + " has no key expression",
					"Publish it with ExactlyOncePublisher (or a " + MESSAGE_ID_HEADER
							+ " header), or set key on @ExactlyOnceListener",
					null);
		}
		return messageId;
	}

	private String evaluate(Delivery delivery, Supplier<Object> payload, Expression parsed, String attribute) {
		ListenerEndpoint endpoint = delivery.endpoint();
		String expression = parsed.getExpressionString();
		Object key;
		try {
			key = parsed.getValue(this.evaluationContext, new KeyRoot(payload.get(),
					new HeaderTexts(delivery, HeaderEncoding.firstBytesByName(delivery.headers())), delivery.subject()));
		}
		catch (EvaluationException ex) {
			throw new PoisonMessageException(("key".equals(attribute) ? "Key" : "Limit key") + " expression '" + expression + "' of listener " + endpoint.describe()
					+ " failed on the message at " + delivery.describe() + ": " + ex.getMessage(),
					"Fix the " + attribute + " attribute of @ExactlyOnceListener or the publisher's payload", ex);
		}
		if (key == null || key.toString().isBlank()) {
			throw new PoisonMessageException(("key".equals(attribute) ? "Key" : "Limit key") + " expression '" + expression + "' of listener " + endpoint.describe()
					+ " gave an empty key for the message at " + delivery.describe(),
					"Make the publisher set the fields the " + attribute + " attribute of @ExactlyOnceListener reads", null);
		}
		return key.toString();
	}

	/** A header value as text, poison when it is not UTF-8 (lenient decoding would merge different values). */
	private static String text(Delivery delivery, String name, byte[] value) {
		if (value == null) {
			return null;
		}
		return StrictUtf8.decode(value)
			.orElseThrow(() -> new PoisonMessageException("Header " + name + " of the message at " + delivery.describe()
					+ " is not valid UTF-8, so it cannot be told apart from other values as a key",
					"Fix the publisher: send the key as UTF-8 (ExactlyOncePublisher encodes it)", null));
	}

	/**
	 * The first value of each header, as text, decoded when a key expression reads it: only a
	 * header the expression reads must be UTF-8.
	 */
	private static final class HeaderTexts extends AbstractMap<String, String> {

		private final Delivery delivery;

		private final Map<String, byte[]> values;

		HeaderTexts(Delivery delivery, Map<String, byte[]> values) {
			this.delivery = delivery;
			this.values = values;
		}

		@Override
		public String get(Object name) {
			byte[] value = this.values.get(name);
			return (value != null) ? text(this.delivery, String.valueOf(name), value) : null;
		}

		@Override
		public boolean containsKey(Object name) {
			return this.values.containsKey(name);
		}

		@Override
		public Set<Entry<String, String>> entrySet() {
			Map<String, String> texts = new LinkedHashMap<>();
			this.values.keySet().forEach((name) -> texts.put(name, get(name)));
			return texts.entrySet();
		}

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
