package dev.exactlyonce.it;

import dev.exactlyonce.testapp.TestInstances;

/**
 * Durable waits with {@code exactlyonce.listener.pipelined}: a suspension's WAITING record is
 * written on the completion thread, and the message is acked only after it.
 */
class PipelinedDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	@Override
	protected void configureStore(TestInstances instances) {
		instances.with("exactlyonce.listener.pipelined", "true");
	}

}
