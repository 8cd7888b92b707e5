package dev.exactlyonce.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;

/**
 * Gives each test its own nats-server (free port, temporary store directory) and a set of
 * application instances against it, closed after the test.
 */
abstract class NatsIntegrationTestSupport {

	protected NatsServerProcess nats;

	protected TestInstances instances;

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats);
		configure(this.instances);
	}

	@AfterEach
	void stopNats() {
		this.instances.ledger().open();
		this.instances.close();
		this.nats.close();
	}

	/**
	 * Sets properties every instance of the test class starts with.
	 * @param instances the instances to configure
	 */
	protected void configure(TestInstances instances) {
	}

}
