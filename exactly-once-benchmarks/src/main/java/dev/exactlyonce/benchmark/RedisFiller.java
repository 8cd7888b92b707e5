package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Bulk-loads completed records into Redis: the template record's hash with its {@code key} field
 * changed, written with {@code HSET} and the template's {@code PEXPIRE} per key, pipelined on a
 * Lettuce connection with auto-flush off, {@value #CHUNK} records at a time.
 */
final class RedisFiller implements AutoCloseable {

	private static final int CHUNK = 4000;

	private static final Duration CHUNK_TIMEOUT = Duration.ofMinutes(1);

	private final StatefulRedisConnection<String, String> connection;

	private final String keyPrefix;

	private final Map<String, String> fields;

	private final long ttlMillis;

	private final String encoding;

	private RedisFiller(StatefulRedisConnection<String, String> connection, String keyPrefix,
			Map<String, String> fields, long ttlMillis, String encoding) {
		this.connection = connection;
		this.keyPrefix = keyPrefix;
		this.fields = fields;
		this.ttlMillis = ttlMillis;
		this.encoding = encoding;
	}

	/**
	 * Reads the template record's hash and time to live.
	 * @param client the client to open the filler's connection with
	 * @param keyPrefix the store's key prefix
	 * @return the filler
	 * @throws IllegalStateException when the template is missing or holds its key elsewhere than in
	 * its {@code key} field
	 */
	static RedisFiller of(RedisClient client, String keyPrefix) {
		StatefulRedisConnection<String, String> connection = client.connect();
		RedisCommands<String, String> commands = connection.sync();
		String templateKey = ScaleRecords.templateKey();
		Map<String, String> fields = new LinkedHashMap<>(commands.hgetall(keyPrefix + templateKey));
		long holdingKey = fields.values().stream().filter((value) -> value.contains(templateKey)).count();
		if (!templateKey.equals(fields.get("key")) || holdingKey != 1) {
			connection.close();
			throw new IllegalStateException("Template hash does not hold its key in the key field only: " + fields);
		}
		long ttlMillis = commands.pttl(keyPrefix + templateKey);
		String encoding = commands.objectEncoding(keyPrefix + templateKey);
		connection.setAutoFlushCommands(false);
		return new RedisFiller(connection, keyPrefix, fields, ttlMillis, encoding);
	}

	/**
	 * Writes the records of filled keys {@code from} up to {@code to}.
	 * @param from the first index
	 * @param to the index after the last
	 * @throws io.lettuce.core.RedisException when Redis refuses a record
	 */
	void fill(long from, long to) {
		RedisAsyncCommands<String, String> commands = this.connection.async();
		List<RedisFuture<?>> pending = new ArrayList<>(2 * CHUNK);
		for (long index = from; index < to; index++) {
			String key = ScaleRecords.filledKey(index);
			Map<String, String> record = new LinkedHashMap<>(this.fields);
			record.put("key", key);
			pending.add(commands.hset(this.keyPrefix + key, record));
			pending.add(commands.pexpire(this.keyPrefix + key, this.ttlMillis));
			if (pending.size() == 2 * CHUNK) {
				flush(pending);
			}
		}
		flush(pending);
	}

	private void flush(List<RedisFuture<?>> pending) {
		this.connection.flushCommands();
		if (!LettuceFutures.awaitAll(CHUNK_TIMEOUT, pending.toArray(RedisFuture[]::new))) {
			throw new IllegalStateException("Redis did not answer " + pending.size() + " commands within " + CHUNK_TIMEOUT);
		}
		pending.clear();
	}

	/**
	 * The template's shape.
	 * @return its field count, encoding and time to live
	 */
	String description() {
		return String.format(Locale.ROOT, "hash of %d fields (%s encoding), PEXPIRE %d ms", this.fields.size(),
				this.encoding, this.ttlMillis);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
