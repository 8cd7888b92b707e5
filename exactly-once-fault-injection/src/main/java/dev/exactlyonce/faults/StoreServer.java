package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.ServerProcess;

/**
 * The idempotency store of one row and its server, when it has one of its own: none for
 * {@code nats-kv} (the bucket lives in the row's nats-server), a {@code redis-server} with
 * {@code appendfsync always} for {@code redis}, Google's Firestore emulator for {@code firestore}.
 * The driver kills, restarts, pauses and resumes that server.
 */
abstract class StoreServer implements AutoCloseable {

	/** The store types the driver can run: {@code nats-kv}, {@code redis}, {@code firestore}. */
	static final List<String> TYPES = List.of("nats-kv", "redis", "firestore");

	/**
	 * Starts the store's server.
	 * @param type {@code exactlyonce.store.type}: {@code nats-kv}, {@code redis} or {@code firestore}
	 * @param moreAddresses local addresses the server must also listen on (a veth pair's root side)
	 * @param timeout each store call's timeout in the consumers (below the lease)
	 * @return the started store
	 * @throws IllegalArgumentException naming the supported types
	 */
	static StoreServer start(String type, List<String> moreAddresses, Duration timeout) {
		return switch (type) {
			case "nats-kv" -> new NatsKv();
			case "redis" -> new Redis(moreAddresses, timeout);
			case "firestore" -> new Firestore(moreAddresses, timeout);
			default -> throw new IllegalArgumentException("--store=" + type + " is not supported by the fault driver: "
					+ "use nats-kv, redis or firestore");
		};
	}

	/** {@code exactlyonce.store.type}. */
	abstract String type();

	/**
	 * The consumers' properties that select and reach this store.
	 * @param host the address the consumer reaches the server at ({@code 127.0.0.1} in the root
	 * network namespace)
	 * @return Spring properties
	 */
	abstract Map<String, String> consumerProperties(String host);

	/**
	 * The server, for kills and pauses.
	 * @return the process
	 * @throws UnsupportedOperationException for {@code nats-kv}, whose server is the row's nats-server
	 */
	abstract ServerProcess server();

	@Override
	public void close() {
	}

	private static final class NatsKv extends StoreServer {

		@Override
		String type() {
			return "nats-kv";
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			return Map.of("exactlyonce.store.type", "nats-kv");
		}

		@Override
		ServerProcess server() {
			throw new UnsupportedOperationException("The NATS KV store lives in the row's nats-server: "
					+ "NATS_RESTART is its restart row");
		}

	}

	private static final class Redis extends StoreServer {

		private final RedisServerProcess redis;

		private final Duration timeout;

		Redis(List<String> moreAddresses, Duration timeout) {
			this.redis = new RedisServerProcess("always", moreAddresses).start();
			this.timeout = timeout;
		}

		@Override
		String type() {
			return "redis";
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			Map<String, String> properties = new LinkedHashMap<>();
			properties.put("spring.profiles.active", "redis");
			properties.put("exactlyonce.store.type", "redis");
			properties.put("spring.data.redis.host", host);
			properties.put("spring.data.redis.port", Integer.toString(this.redis.port()));
			properties.put("spring.data.redis.timeout", this.timeout.toMillis() + "ms");
			return properties;
		}

		@Override
		ServerProcess server() {
			return this.redis;
		}

		@Override
		public void close() {
			this.redis.close();
		}

	}

	private static final class Firestore extends StoreServer {

		private final FirestoreEmulatorProcess emulator;

		private final Duration timeout;

		Firestore(List<String> moreAddresses, Duration timeout) {
			if (!moreAddresses.isEmpty()) {
				throw new IllegalArgumentException("The Firestore emulator listens on loopback only: a consumer in "
						+ "another network namespace cannot reach it; use --store=redis or nats-kv for partition rows");
			}
			this.emulator = new FirestoreEmulatorProcess().start();
			this.timeout = timeout;
		}

		@Override
		String type() {
			return "firestore";
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			Map<String, String> properties = new LinkedHashMap<>();
			properties.put("spring.profiles.active", "firestore");
			properties.put("exactlyonce.store.type", "firestore");
			properties.put("spring.cloud.gcp.firestore.project-id", "exactly-once-faults");
			properties.put("spring.cloud.gcp.firestore.emulator.enabled", "true");
			properties.put("spring.cloud.gcp.firestore.host-port", host + ":" + this.emulator.port());
			properties.put("exactlyonce.store.firestore.timeout", this.timeout.toMillis() + "ms");
			return properties;
		}

		@Override
		ServerProcess server() {
			return this.emulator;
		}

		@Override
		public void close() {
			this.emulator.close();
		}

	}

}
