package dev.exactlyonce.store.natskv;

import java.time.Clock;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;

import dev.exactlyonce.store.AbstractSkewedClockStoreTests;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.NatsServerProcess;

/**
 * Instances with disagreeing clocks on one {@link NatsKvIdempotencyStore} bucket of a real
 * {@code nats-server}.
 */
class NatsKvSkewedClockIntegrationTests extends AbstractSkewedClockStoreTests {

	private static final Duration TTL = Duration.ofMinutes(10);

	private NatsServerProcess server;

	private Connection connection;

	@Override
	protected void startInfrastructure() throws Exception {
		this.server = new NatsServerProcess().start();
		this.connection = Nats.connect(this.server.url());
	}

	@Override
	protected void stopInfrastructure() throws Exception {
		if (this.connection != null) {
			this.connection.close();
		}
		this.server.close();
	}

	@Override
	protected IdempotencyStore createStore(Clock clock) {
		return new NatsKvBucketProvisioner(this.connection, Duration.ofSeconds(2)).provisionStore(
				new NatsKvBucketSpec("skew", TTL, StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024)),
				new ClaimRules(clock, TTL), this.connection.getServerInfo().getMaxPayload());
	}

}
