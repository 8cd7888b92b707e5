package dev.exactlyonce.benchmark;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;
import dev.exactlyonce.test.RedisServerProcess;

/**
 * The Redis store on its own redis-server without persistence. Its cost of a record is the growth
 * of {@code used_memory} ({@code INFO memory}) over the last fill per record filled.
 */
final class RedisScaledStore implements ScaledStore {

	private static final String KEY_PREFIX = "benchmark:";

	private final RedisServerProcess server;

	private final LettuceConnectionFactory connectionFactory;

	private final RedisIdempotencyStore store;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> info;

	private final RedisFiller filler;

	private double lastFillBytesPerRecord = Double.NaN;

	private RedisScaledStore(RedisServerProcess server, LettuceConnectionFactory connectionFactory) {
		this.server = server;
		this.connectionFactory = connectionFactory;
		this.store = new RedisIdempotencyStore(connectionFactory, KEY_PREFIX, ScaleRecords.TTL);
		ScaleRecords.writeTemplate(this.store);
		this.client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		this.info = this.client.connect();
		this.filler = RedisFiller.of(this.client, KEY_PREFIX);
	}

	/**
	 * Starts a server and writes the template record.
	 * @return the store
	 */
	static RedisScaledStore start() {
		RedisServerProcess server = new RedisServerProcess().start();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return new RedisScaledStore(server, connectionFactory);
	}

	@Override
	public String label() {
		return "redis (no persistence)";
	}

	@Override
	public String templateDescription() {
		return this.filler.description();
	}

	@Override
	public IdempotencyStore store() {
		return this.store;
	}

	@Override
	public void fill(long from, long to) {
		long before = usedMemory();
		this.filler.fill(from, to);
		this.lastFillBytesPerRecord = (to > from) ? (double) (usedMemory() - before) / (to - from) : Double.NaN;
	}

	/** The growth of {@code used_memory} over the last fill per record filled. */
	@Override
	public double bytesPerRecord() {
		return this.lastFillBytesPerRecord;
	}

	private long usedMemory() {
		return this.info.sync()
			.info("memory")
			.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.mapToLong((line) -> Long.parseLong(line.substring("used_memory:".length()).trim()))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("INFO memory has no used_memory"));
	}

	@Override
	public void close() {
		this.filler.close();
		this.info.close();
		this.client.shutdown();
		this.connectionFactory.destroy();
		this.server.close();
	}

}
