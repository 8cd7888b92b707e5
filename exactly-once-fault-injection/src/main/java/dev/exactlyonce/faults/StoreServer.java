package dev.exactlyonce.faults;

import java.time.Duration;
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
	static final List<String> TYPES = List.of("nats-kv", "redis", "firestore", PostgresDatabase.STORE_TYPE);

	/**
	 * Starts the store's server.
	 * @param type {@code exactlyonce.store.type}: {@code nats-kv}, {@code redis}, {@code firestore} or
	 * {@code jdbc} (the suite's PostgreSQL, {@link PostgresDatabase})
	 * @param moreAddresses local addresses the server must also listen on (a veth pair's root side)
	 * @param timeout each store call's timeout in the consumers (below the lease)
	 * @return the started store
	 * @throws IllegalArgumentException naming the supported types
	 */
	static StoreServer start(String type, List<String> moreAddresses, Duration timeout) {
		return switch (type) {
			case "nats-kv" -> new WithoutOwnServer("nats-kv", "The NATS KV store lives in the row's nats-server: "
					+ "NATS_RESTART is its restart row");
			case PostgresDatabase.STORE_TYPE -> new WithoutOwnServer(PostgresDatabase.STORE_TYPE, "The JDBC store's "
					+ "PostgreSQL is the suite's (PostgresDatabase), started once for every row");
			case "redis" -> new Redis(moreAddresses, timeout);
			case "firestore" -> new Firestore(moreAddresses, timeout);
			default -> throw new IllegalArgumentException("--store=" + type + " is not supported by the fault driver: "
					+ "use one of " + TYPES);
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

	/** A store whose server the row does not start, kill or pause. */
	private static final class WithoutOwnServer extends StoreServer {

		private final String type;

		private final String whyNoServer;

		WithoutOwnServer(String type, String whyNoServer) {
			this.type = type;
			this.whyNoServer = whyNoServer;
		}

		@Override
		String type() {
			return this.type;
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			return Map.of("exactlyonce.store.type", this.type);
		}

		@Override
		ServerProcess server() {
			throw new UnsupportedOperationException(this.whyNoServer);
		}

	}

	/** A store with a server of its own, which the driver kills, restarts, pauses and resumes. */
	private abstract static class OwnServer extends StoreServer {

		private final ServerProcess process;

		private final Duration timeout;

		OwnServer(ServerProcess process, Duration timeout) {
			this.process = process;
			this.timeout = timeout;
			process.start();
		}

		/** Each store call's timeout in the consumers, as a property value. */
		String timeout() {
			return this.timeout.toMillis() + "ms";
		}

		@Override
		ServerProcess server() {
			return this.process;
		}

		@Override
		public void close() {
			this.process.close();
		}

	}

	private static final class Redis extends OwnServer {

		Redis(List<String> moreAddresses, Duration timeout) {
			super(new RedisServerProcess("always", moreAddresses), timeout);
		}

		@Override
		String type() {
			return "redis";
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			return Map.of("spring.profiles.active", "redis", "exactlyonce.store.type", "redis",
					"spring.data.redis.host", host, "spring.data.redis.port", Integer.toString(server().port()),
					"spring.data.redis.timeout", timeout());
		}

	}

	private static final class Firestore extends OwnServer {

		Firestore(List<String> moreAddresses, Duration timeout) {
			super(loopbackOnly(moreAddresses), timeout);
		}

		private static FirestoreEmulatorProcess loopbackOnly(List<String> moreAddresses) {
			if (!moreAddresses.isEmpty()) {
				throw new IllegalArgumentException("The Firestore emulator listens on loopback only: a consumer in "
						+ "another network namespace cannot reach it; use --store=redis or nats-kv for partition rows");
			}
			return new FirestoreEmulatorProcess();
		}

		@Override
		String type() {
			return "firestore";
		}

		@Override
		Map<String, String> consumerProperties(String host) {
			return Map.of("spring.profiles.active", "firestore", "exactlyonce.store.type", "firestore",
					"spring.cloud.gcp.firestore.project-id", "exactly-once-faults",
					"spring.cloud.gcp.firestore.emulator.enabled", "true", "spring.cloud.gcp.firestore.host-port",
					host + ":" + server().port(), "exactlyonce.store.firestore.timeout", timeout());
		}

	}

}
