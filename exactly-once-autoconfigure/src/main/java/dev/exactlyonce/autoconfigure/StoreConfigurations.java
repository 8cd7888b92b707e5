package dev.exactlyonce.autoconfigure;

import java.util.EnumMap;
import java.util.Map;

import dev.exactlyonce.autoconfigure.StoreProperties.StoreType;

/**
 * The configuration class of each store type, imported by {@link ExactlyOnceStoreAutoConfiguration}
 * and guarded by {@link StoreTypeCondition}.
 */
final class StoreConfigurations {

	private static final Map<StoreType, String> MAPPINGS = new EnumMap<>(StoreType.class);

	static {
		MAPPINGS.put(StoreType.NATS_KV, NatsKvStoreConfiguration.class.getName());
		MAPPINGS.put(StoreType.REDIS, RedisStoreConfiguration.class.getName());
		MAPPINGS.put(StoreType.FIRESTORE, FirestoreStoreConfiguration.class.getName());
		MAPPINGS.put(StoreType.JDBC, JdbcStoreConfiguration.class.getName());
		MAPPINGS.put(StoreType.MEMORY, MemoryStoreConfiguration.class.getName());
	}

	private StoreConfigurations() {
	}

	static String[] configurationClassNames() {
		return MAPPINGS.values().toArray(String[]::new);
	}

	static StoreType getType(String configurationClassName) {
		return MAPPINGS.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().equals(configurationClassName))
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Unknown store configuration " + configurationClassName));
	}

}
