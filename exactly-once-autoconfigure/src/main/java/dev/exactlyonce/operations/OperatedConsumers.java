package dev.exactlyonce.operations;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

import dev.exactlyonce.listener.ConsumerSettings;

/**
 * The declared consumers an operator can act on, and how their tasks' keys are stored
 * ({@code <namespace>:<key>}): under the namespace of this application's listener on the consumer,
 * else under the consumer's ({@code exactlyonce.consumers.<name>.namespace}, else its name), so an
 * application without the listener finds the same records.
 */
public class OperatedConsumers {

	private final Map<String, ConsumerSettings> consumers;

	private final Function<String, Optional<String>> listenerNamespaces;

	/**
	 * Creates the lookup.
	 * @param consumers the declared consumers, by name
	 * @param listenerNamespaces the store namespace of this application's listener on a consumer, or
	 * empty when it has none
	 */
	public OperatedConsumers(Map<String, ConsumerSettings> consumers,
			Function<String, Optional<String>> listenerNamespaces) {
		this.consumers = new TreeMap<>(consumers);
		this.listenerNamespaces = listenerNamespaces;
	}

	/**
	 * The names of the declared consumers, sorted.
	 * @return the names
	 */
	public Iterable<String> names() {
		return this.consumers.keySet();
	}

	/**
	 * The settings of a declared consumer.
	 * @param consumer the consumer's name
	 * @return its settings
	 * @throws OperationRefusedException when no such consumer is declared
	 */
	public ConsumerSettings settings(String consumer) {
		ConsumerSettings settings = this.consumers.get(consumer);
		if (settings == null) {
			throw OperationRefusedException.notFound("No consumer '" + consumer + "' is declared (exactlyonce.consumers has "
					+ this.consumers.keySet() + "): name one of those");
		}
		return settings;
	}

	/**
	 * The store key of a task of a consumer.
	 * @param consumer the consumer's name
	 * @param key the task's key, without namespace
	 * @return {@code <namespace>:<key>}
	 * @throws OperationRefusedException when no such consumer is declared
	 */
	public String storeKey(String consumer, String key) {
		ConsumerSettings settings = settings(consumer);
		return this.listenerNamespaces.apply(consumer).orElseGet(settings::namespace) + ":" + key;
	}

	/**
	 * The prefix of every store key of a consumer's listener.
	 * @param consumer the consumer's name
	 * @return {@code <namespace>:}
	 */
	public String keyPrefix(String consumer) {
		return storeKey(consumer, "");
	}

	/**
	 * Whether a consumer is declared by this application.
	 * @param consumer the consumer's name
	 * @return {@code true} when it is
	 */
	public boolean declares(String consumer) {
		return this.consumers.containsKey(consumer);
	}

}
