package dev.exactlyonce.operations;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import dev.exactlyonce.listener.ConsumerSettings;

/**
 * The declared consumers an operator can act on, and how their listeners' keys are stored
 * ({@code <namespace>:<key>}).
 */
public class OperatedConsumers {

	private final Map<String, ConsumerSettings> consumers;

	private final Function<String, String> namespaces;

	/**
	 * Creates the lookup.
	 * @param consumers the declared consumers, by name
	 * @param namespaces the store namespace of a consumer's listener (the consumer's name by default)
	 */
	public OperatedConsumers(Map<String, ConsumerSettings> consumers, Function<String, String> namespaces) {
		this.consumers = new TreeMap<>(consumers);
		this.namespaces = namespaces;
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
		settings(consumer);
		return this.namespaces.apply(consumer) + ":" + key;
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
