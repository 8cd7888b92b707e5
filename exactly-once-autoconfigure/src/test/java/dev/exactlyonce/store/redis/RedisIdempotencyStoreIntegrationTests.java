package dev.exactlyonce.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

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

}
