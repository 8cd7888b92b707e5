package dev.exactlyonce.store.redis;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.EarlierFormatJournal;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store contract against {@link RedisIdempotencyStore} on a real {@code redis-server}.
 */
class RedisIdempotencyStoreIntegrationTests extends AbstractRemoteIdempotencyStoreContractTests {

	private final AtomicInteger prefixes = new AtomicInteger();

	private RedisServerProcess server;

	private LettuceConnectionFactory connectionFactory;

	private LettuceConnectionFactory proxiedConnectionFactory;

	@Override
	protected void startInfrastructure() {
		this.server = new RedisServerProcess().start();
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@Override
	protected void stopInfrastructure() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.proxiedConnectionFactory != null) {
			this.proxiedConnectionFactory.destroy();
		}
		this.server.close();
	}

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) {
		return new RedisIdempotencyStore(this.connectionFactory, "contract-" + this.prefixes.incrementAndGet() + ":",
				completedTtl);
	}

	@Override
	protected IdempotencyStore createStoreBehind(TcpProxy proxy) {
		this.proxiedConnectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), proxy.port()),
				LettuceClientConfiguration.builder().commandTimeout(CLIENT_TIMEOUT).build());
		this.proxiedConnectionFactory.afterPropertiesSet();
		this.proxiedConnectionFactory.start();
		return new RedisIdempotencyStore(this.proxiedConnectionFactory, "contract-behind-proxy:", LONG_TTL);
	}

	@Override
	protected ServerProcess server() {
		return this.server;
	}

	/** Step fields are read by name ({@code step:<n>}) or with the whole hash ({@code HGETALL}). */
	@Test
	void aDuplicateClaimReadsNoStepField() throws IOException {
		try (RedisCommandMonitor stepFieldCommands = new RedisCommandMonitor(this.server.host(), this.server.port(),
				"\"step:", "\"hgetall\"")) {
			assertADuplicateClaimReadsNoJournalEntry(
					new RedisIdempotencyStore(this.connectionFactory, "counted:", LONG_TTL), stepFieldCommands::count);
		}
	}

	@Test
	void aRecordOfTheEarlierFormatIsResumedAndAnEarlierReaderRefusesItOnceItsStepsMoved() {
		IdempotencyStore store = new RedisIdempotencyStore(this.connectionFactory, "earlier:", LONG_TTL);
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		RecordCodec earlierFormat = new RecordCodec();
		Instant now = Instant.now();
		redis.opsForHash().putAll("earlier:task", Map.of("key", "task", "owner", "worker-0", "token", "token-0",
				"state", "IN_PROGRESS", "attempts", "1", "startedAt", Long.toString(now.minusSeconds(60).toEpochMilli()),
				"leaseUntil", Long.toString(now.minusSeconds(30).toEpochMilli()), "expiresAt",
				Long.toString(now.plus(LONG_TTL).toEpochMilli()), "journal",
				earlierFormat.encodeJournal(EarlierFormatJournal.journal(now))));

		Claim resumed = EarlierFormatJournal.resume(store, "task", now);

		String journalField = (String) redis.opsForHash().get("earlier:task", "journal");
		assertThatExceptionOfType(StoreUnavailableException.class)
			.as("an earlier version stays off a record whose steps it would not see")
			.isThrownBy(() -> earlierFormat.decodeJournal(journalField));
		store.release(resumed, "failed");
		assertThat(((ClaimResult.Acquired) store.tryClaim("task", "worker-2", Duration.ofSeconds(30))).previousAttempt()
			.lastStep()).as("where the released attempt was, from the step fields").contains("deploy");
	}

}
