package dev.exactlyonce.takeover;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;

/**
 * What the takeover's integration tests share: a nats-server of their own per test, and the worker
 * JVMs and application contexts they start, all stopped after the test.
 */
abstract class TakeoverTestsBase {

	protected NatsServerProcess nats;

	protected final List<ConfigurableApplicationContext> contexts = new CopyOnWriteArrayList<>();

	protected final List<TakeoverWorker> workers = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
	}

	@AfterEach
	void stop() throws Exception {
		for (TakeoverWorker worker : this.workers) {
			worker.close();
		}
		this.contexts.forEach(ConfigurableApplicationContext::close);
		this.nats.close();
	}

}
