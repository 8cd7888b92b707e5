package dev.exactlyonce.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.Map;

import io.nats.client.Message;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Resolves the arguments of a listener method from a delivery: the payload (JSON, or raw
 * {@code byte[]} / {@code String}), the {@link ExactlyOnceContext} and the raw {@link Message}. A
 * payload the parameter cannot hold (invalid JSON, too deeply nested, a {@code String} that is not
 * UTF-8, JSON {@code null}) is a {@link PoisonMessageException}.
 */
final class ArgumentResolver {

	private enum Kind {

		CONTEXT, MESSAGE, PAYLOAD

	}

	private final Kind[] kinds;

	private final JavaType payloadType;

	private final JsonMapper mapper;

	ArgumentResolver(Method method, JsonMapper mapper) {
		this.mapper = mapper;
		Parameter[] parameters = method.getParameters();
		this.kinds = new Kind[parameters.length];
		Type payload = null;
		int payloadIndex = -1;
		for (int i = 0; i < parameters.length; i++) {
			Class<?> type = parameters[i].getType();
			if (type == ExactlyOnceContext.class) {
				this.kinds[i] = Kind.CONTEXT;
			}
			else if (type == Message.class) {
				this.kinds[i] = Kind.MESSAGE;
			}
			else if (payload == null) {
				this.kinds[i] = Kind.PAYLOAD;
				payload = parameters[i].getParameterizedType();
				payloadIndex = i;
			}
			else {
				throw new ExactlyOnceConfigurationException("@ExactlyOnceListener method " + method
						+ " has more than one payload parameter (parameters " + payloadIndex + " and " + i + "): a "
						+ "message has one payload", "Keep one payload parameter; take anything else from "
								+ "ExactlyOnceContext (key, headers, subject, previous attempt) or io.nats.client.Message");
			}
		}
		this.payloadType = (payload != null) ? mapper.constructType(payload) : null;
	}

	/**
	 * The payload a key expression sees: the payload parameter's value (already read, or read now
	 * when {@code alreadyRead} is {@code null}), or a map when the method takes no payload.
	 */
	Object payloadForKey(Delivery delivery, Object alreadyRead) {
		if (this.payloadType == null) {
			return convert(delivery, this.mapper.constructType(Map.class));
		}
		return (alreadyRead != null) ? alreadyRead : convert(delivery, this.payloadType);
	}

	/** Reads the payload parameter's value, or {@code null} when the method takes none. */
	Object payload(Delivery delivery) {
		return (this.payloadType != null) ? convert(delivery, this.payloadType) : null;
	}

	Object[] arguments(Delivery delivery, Object payload) {
		Object[] args = new Object[this.kinds.length];
		for (int i = 0; i < args.length; i++) {
			args[i] = switch (this.kinds[i]) {
				case CONTEXT -> delivery;
				case MESSAGE -> delivery.message();
				case PAYLOAD -> payload;
			};
		}
		return args;
	}

	private Object convert(Delivery delivery, JavaType type) {
		byte[] data = delivery.message().getData();
		if (type.getRawClass() == byte[].class) {
			return data;
		}
		if (type.getRawClass() == String.class) {
			return StrictUtf8.decode(data)
				.orElseThrow(() -> new PoisonMessageException("Payload of the message at " + delivery.describe()
						+ " is not valid UTF-8 and cannot be read as a String",
						"Fix the publisher, or take byte[] to read the payload's bytes yourself", null));
		}
		Object value;
		try {
			value = this.mapper.readValue(data, type);
		}
		catch (JacksonException ex) {
			throw new PoisonMessageException("Payload of the message at " + delivery.describe()
					+ " cannot be read as " + type.toCanonical() + " (" + ex.getClass().getSimpleName() + " at "
					+ ex.getLocation() + ")",
					"Fix the publisher, or take byte[] or String to read the payload yourself", null);
		}
		if (value == null) {
			throw new PoisonMessageException("Payload of the message at " + delivery.describe()
					+ " is JSON null, not a " + type.toCanonical(),
					"Fix the publisher, or take byte[] or String to read the payload yourself", null);
		}
		return value;
	}

}
