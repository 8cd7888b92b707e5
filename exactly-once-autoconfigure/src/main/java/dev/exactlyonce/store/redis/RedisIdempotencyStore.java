package dev.exactlyonce.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.LandedWrites;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordChangedException;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.store.UnconfirmedClaims;

/**
 * An {@link IdempotencyStore} in Redis. Each record is one hash under {@code prefix + key}, so a
 * record never spans hash slots and the store works on Redis Cluster. Every transition is one Lua
 * script (atomic on the server) that checks the state and fencing token and sets a {@code PEXPIRE}
 * of {@code completed-ttl}; lease expiry is decided with the Redis server's clock, so workers with
 * skewed clocks agree on it. The transitions are those of {@link dev.exactlyonce.store.ClaimRules};
 * a write applied without an answer is recognised by reading it back ({@link LandedWrites},
 * {@link UnconfirmedClaims}). The step journal is one field per step (see {@code record.lua}), the
 * operators' audit one JSON field spliced by a script on the server, the duplicate copies'
 * sequences one comma-separated field.
 */
public class RedisIdempotencyStore implements IdempotencyStore, RecordScanner {

	/** Keys asked of each {@code SCAN} call, and read per pipelined round trip. */
	private static final int SCAN_PAGE_SIZE = 500;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> CLAIM = script("claim.lua");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> UPDATE = script("update.lua");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> STEP = script("step.lua");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> DUPLICATE = script("duplicate.lua");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> OPERATOR = script("operator.lua");

	private final RecordCodec codec = new RecordCodec();

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	private final String ttlMillis;

	private final Duration completedTtl;

	private final UnconfirmedClaims unconfirmedClaims = new UnconfirmedClaims();

	/**
	 * Creates the store.
	 * @param connectionFactory the application's Redis connection factory
	 * @param keyPrefix prepended to every idempotency key
	 * @param completedTtl how long records are kept after their last write
	 */
	public RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix, Duration completedTtl) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keyPrefix = keyPrefix;
		this.ttlMillis = Long.toString(completedTtl.toMillis());
		this.completedTtl = completedTtl;
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		String token = this.unconfirmedClaims.token(key, owner);
		return this.unconfirmedClaims.claim(key, owner, token, () -> claim(key, owner, lease, token),
				() -> readBack(key));
	}

	private ClaimResult claim(String key, String owner, Duration lease, String token) {
		List<?> reply = run(CLAIM, key, key, owner, token, Long.toString(lease.toMillis()), this.ttlMillis);
		IdempotencyRecord current = RedisRecordHash.decode(reply, 2);
		return switch (String.valueOf(reply.get(0))) {
			case "ACQUIRED" -> ClaimResult.Acquired.of(current);
			case "HELD" -> new ClaimResult.HeldElsewhere(current.owner(), current.leaseUntil());
			case "FINAL" -> switch (current.state()) {
				case COMPLETED -> new ClaimResult.Completed(current);
				case WAITING -> new ClaimResult.Waiting(current);
				default -> new ClaimResult.DeadLettered(current);
			};
			default -> throw new StoreUnavailableException("Unexpected claim script reply " + reply.get(0), null);
		};
	}

	@Override
	public Claim renew(Claim claim, Duration lease) {
		IdempotencyRecord renewed = LandedWrites.write(() -> update(claim, "leaseUntil", lease),
				() -> readBack(claim.key()), LandedWrites.renewalOf(claim));
		return claim.withLeaseUntil(renewed.leaseUntil());
	}

	@Override
	public IdempotencyRecord complete(Claim claim, Completion completion) {
		List<String> fields = new ArrayList<>(List.of("state", completion.state().name(), "streamSequence",
				Long.toString(completion.streamSequence())));
		addIfSet(fields, "listener", completion.listener());
		addIfSet(fields, "resultSummary", completion.resultSummary());
		String ttl = Long.toString(this.completedTtl.plus(completion.keptFor()).toMillis());
		// a waiting task has not completed: its record keeps no completion time
		String completedAt = (completion.state() == RecordState.WAITING) ? "" : "completedAt";
		return LandedWrites.write(() -> update(claim, ttl, completedAt, Duration.ZERO, fields.toArray(String[]::new)),
				() -> readBack(claim.key()), LandedWrites.completionOf(claim, completion));
	}

	@Override
	public void release(Claim claim, String failure) {
		// the script's token check guarantees the stored count is still the one this claim was given
		List<String> fields = new ArrayList<>(List.of("state", RecordState.FAILED.name(), "attempts",
				Integer.toString(ClaimRules.attemptsAfterRelease(claim.attempt(), failure))));
		addIfSet(fields, "resultSummary", failure);
		LandedWrites.write(() -> update(claim, "leaseUntil", Duration.ZERO, fields.toArray(String[]::new)),
				() -> readBack(claim.key()), LandedWrites.releaseOf(claim));
	}

	/**
	 * Sends only the step's entry: the script writes it to a field of its own, so a step costs one
	 * round trip and the same work whatever the journal's length.
	 */
	@Override
	public void recordStep(Claim claim, StepRecord step) {
		recordSteps(claim, List.of(step));
	}

	/**
	 * One script on the server, one round trip: the token check and every entry are atomic, each
	 * entry written to a field of its own, the key's TTL set as a step sets it.
	 */
	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		List<String> args = new ArrayList<>(2 + 3 * steps.size());
		args.add(claim.token());
		args.add(this.ttlMillis);
		for (StepRecord step : steps) {
			args.add(this.codec.encodeStep(step));
			args.add(step.name());
			args.add(flag(step.state() == StepState.STARTED));
		}
		List<?> reply = run(STEP, claim.key(), args.toArray(String[]::new));
		if ("LOST".equals(String.valueOf(reply.get(0)))) {
			throw new ClaimLostException(claim.key(), claim.token());
		}
	}

	/** One script on the server: the state check and the append are atomic, the key's TTL is kept. */
	@Override
	public void recordDuplicate(String key, long streamSequence) {
		run(DUPLICATE, key, Long.toString(streamSequence), Integer.toString(DUPLICATE_SEQUENCES_KEPT));
	}

	@Override
	public IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action) {
		String states = Arrays.stream(RecordState.values())
			.filter(action.kind()::appliesTo)
			.map(RecordState::name)
			.collect(Collectors.joining(","));
		List<?> reply = run(OPERATOR, key, expectedToken, this.ttlMillis, states, UUID.randomUUID().toString(),
				flag(action.kind().reopens()), flag(action.kind().clearsJournal()), this.codec.encodeAction(action),
				ClaimRules.reopenedSummary(action), Integer.toString(DUPLICATE_SEQUENCES_KEPT));
		if ("CHANGED".equals(String.valueOf(reply.get(0)))) {
			throw new RecordChangedException(key, expectedToken, action.kind());
		}
		return RedisRecordHash.decode(reply, 2);
	}

	private static String flag(boolean set) {
		return set ? "1" : "0";
	}

	@Override
	public Optional<IdempotencyRecord> find(String key) {
		return Optional.ofNullable(readBack(key));
	}

	/**
	 * Lists the records with {@code SCAN} over the key prefix, reading each page of keys with
	 * pipelined {@code HGETALL}s (one round trip per page, not per key). On Redis Cluster, Spring
	 * Data Redis does not scan across nodes: this then fails with {@link StoreUnavailableException}.
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		ScanOptions options = ScanOptions.scanOptions()
			.match(escapeGlob(this.keyPrefix) + "*")
			.count(SCAN_PAGE_SIZE)
			.build();
		List<String> page = new ArrayList<>(SCAN_PAGE_SIZE);
		try (Cursor<String> keys = this.redis.scan(options)) {
			while (keys.hasNext()) {
				page.add(keys.next());
				if (page.size() == SCAN_PAGE_SIZE || !keys.hasNext()) {
					readHashes(page).forEach(action);
					page.clear();
				}
			}
		}
		catch (DataAccessException ex) {
			throw unavailable("scan", ex);
		}
	}

	/** Reads the records of some keys in one pipelined round trip; keys gone meanwhile are left out. */
	private List<IdempotencyRecord> readHashes(List<String> redisKeys) {
		List<Object> hashes = this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			redisKeys.forEach((key) -> connection.hashCommands().hGetAll(key.getBytes(StandardCharsets.UTF_8)));
			return null;
		}, this.redis.getStringSerializer());
		List<IdempotencyRecord> records = new ArrayList<>(hashes.size());
		for (Object hash : hashes) {
			IdempotencyRecord record = decodeHash((Map<?, ?>) hash);
			if (record != null) {
				records.add(record);
			}
		}
		return records;
	}

	@Override
	public String name() {
		return "redis";
	}

	/** Reads the record's fields but its step fields, with one {@code HMGET}. */
	@Override
	public Optional<IdempotencyRecord> findWithoutJournal(String key) {
		List<Object> values;
		try {
			values = this.redis.opsForHash().multiGet(this.keyPrefix + key, List.<Object>copyOf(RedisRecordHash.FIELDS_BUT_JOURNAL));
		}
		catch (DataAccessException ex) {
			throw unavailable("read", ex);
		}
		Map<String, String> fields = new HashMap<>();
		for (int i = 0; i < values.size(); i++) {
			if (values.get(i) != null) {
				fields.put(RedisRecordHash.FIELDS_BUT_JOURNAL.get(i), (String) values.get(i));
			}
		}
		return Optional.ofNullable(RedisRecordHash.decode(fields));
	}

	/** Reads the record of a key. */
	private IdempotencyRecord readBack(String key) {
		try {
			return readHash(this.keyPrefix + key);
		}
		catch (DataAccessException ex) {
			throw unavailable("read", ex);
		}
	}

	private IdempotencyRecord readHash(String redisKey) {
		return decodeHash(this.redis.opsForHash().entries(redisKey));
	}

	private static IdempotencyRecord decodeHash(Map<?, ?> hash) {
		Map<String, String> fields = new HashMap<>();
		hash.forEach((field, value) -> fields.put((String) field, (String) value));
		return RedisRecordHash.decode(fields);
	}

	/** Runs the update script: sets {@code timeField} to now + offset and the given fields. */
	private IdempotencyRecord update(Claim claim, String timeField, Duration offset, String... fields) {
		return update(claim, this.ttlMillis, timeField, offset, fields);
	}

	private IdempotencyRecord update(Claim claim, String ttl, String timeField, Duration offset, String... fields) {
		String[] args = new String[4 + fields.length];
		args[0] = claim.token();
		args[1] = ttl;
		args[2] = timeField;
		args[3] = Long.toString(offset.toMillis());
		System.arraycopy(fields, 0, args, 4, fields.length);
		List<?> reply = run(UPDATE, claim.key(), args);
		if ("LOST".equals(String.valueOf(reply.get(0)))) {
			throw new ClaimLostException(claim.key(), claim.token());
		}
		return RedisRecordHash.decode(reply, 2);
	}

	@SuppressWarnings("rawtypes")
	private List<?> run(RedisScript<List> script, String key, String... args) {
		try {
			List<?> reply = this.redis.execute(script, List.of(this.keyPrefix + key), (Object[]) args);
			if (reply == null || reply.isEmpty()) {
				throw new StoreUnavailableException("Redis script returned no reply for key '" + key + "'", null);
			}
			return reply;
		}
		catch (DataAccessException ex) {
			throw unavailable("script", ex);
		}
	}

	/**
	 * Reads a script once, after the functions every script shares ({@code record.lua}): a
	 * resource-backed script would check the resource for changes on every call.
	 */
	@SuppressWarnings("rawtypes")
	private static RedisScript<List> script(String name) {
		return RedisScript.of(resource("record.lua") + resource(name), List.class);
	}

	private static String resource(String name) {
		try (InputStream in = new ClassPathResource("dev/exactlyonce/store/redis/" + name).getInputStream()) {
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis script " + name + " is missing from the classpath", ex);
		}
	}

	private static String escapeGlob(String prefix) {
		return prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
	}

	private static void addIfSet(List<String> fields, String field, String value) {
		if (value != null) {
			fields.add(field);
			fields.add(value);
		}
	}

	private static StoreUnavailableException unavailable(String operation, DataAccessException ex) {
		return new StoreUnavailableException("Redis " + operation + " failed: " + ex.getMessage(), ex);
	}

}
