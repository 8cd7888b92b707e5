package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operations endpoint while its idempotency store (Redis) is down: an operation answers 503
 * with what failed and that asking again repeats nothing, as docs/operating.md's answers table
 * says, not Boot's bare 500.
 */
class OperationsWhileTheStoreIsDownIntegrationTests extends NatsIntegrationTestSupport {

	private static final String OPS = "/actuator/exactlyonceops/worker";

	private final RedisServerProcess redis = new RedisServerProcess("always").start();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.port", this.redis.port())
			.with("spring.data.redis.timeout", "1s")
			.with("exactlyonce.streams.TASKS.retention", "limits")
			.with("spring.main.web-application-type", "servlet")
			.with("server.port", "0")
			.with("management.endpoints.web.exposure.include", "exactlyonceops")
			.with("management.endpoint.exactlyonceops.access", "unrestricted");
	}

	@AfterEach
	void stopRedis() {
		this.redis.close();
	}

	@Test
	void aResubmitAndATaskReadWhileTheStoreIsDownAnswer503WithWhatFailed() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post",
				TaskAssignment.of("t-ok"), "t-ok");
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
			.until(() -> instance.bean(TaskInspector.class).task("worker", "t-ok").orElseThrow().status()
					== TaskStatus.COMPLETED);

		this.redis.kill();

		assertThat(http.post(OPS + "/tasks/t-ok", "{\"action\":\"resubmit\",\"reason\":\"model upgraded\"}", 503)
			.get("error").asString()).contains("store");
		assertThat(http.get(OPS + "/tasks/t-ok", 503).get("error").asString()).contains("store");
	}

}
