package dev.exactlyonce.store.natskv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Instances that start at the same moment on a new server all provision the idempotency bucket:
 * the one that loses the creation race uses the bucket the other created instead of failing
 * start-up.
 */
class NatsKvBucketProvisionerIntegrationTests {

	private static final int INSTANCES = 4;

	private static final int ROUNDS = 10;

	private final NatsServerProcess nats = new NatsServerProcess().start();

	private final List<Connection> connections = new ArrayList<>();

	private final ExecutorService instances = Executors.newFixedThreadPool(INSTANCES);

	@AfterEach
	void stop() throws Exception {
		this.instances.shutdownNow();
		for (Connection connection : this.connections) {
			connection.close();
		}
		this.nats.close();
	}

	@Test
	void instancesCreatingTheBucketAtOnceAllStart() throws Exception {
		for (int i = 0; i < INSTANCES; i++) {
			this.connections.add(Nats.connect(this.nats.url()));
		}
		for (int round = 0; round < ROUNDS; round++) {
			NatsKvBucketSpec spec = new NatsKvBucketSpec("race-" + round, Duration.ofHours(1), StorageType.File, 1,
					NatsKvBucketSpec.largestRecord(1024));
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> provisioned = new ArrayList<>();
			for (Connection connection : this.connections) {
				provisioned.add(this.instances.submit(() -> {
					start.await();
					return new NatsKvBucketProvisioner(connection, Duration.ofSeconds(5)).provision(spec);
				}));
			}
			start.countDown();
			for (Future<?> instance : provisioned) {
				assertThat(instance.get()).as("bucket of round %d", round).isNotNull();
			}
		}
	}

}
