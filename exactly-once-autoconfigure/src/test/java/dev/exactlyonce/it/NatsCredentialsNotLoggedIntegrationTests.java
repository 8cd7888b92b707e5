package dev.exactlyonce.it;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.test.FreePorts;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Passwords and tokens of the NATS connection appear nowhere: not in the log, not in the start-up
 * failure and its causes, not in the health details.
 */
@ExtendWith(OutputCaptureExtension.class)
class NatsCredentialsNotLoggedIntegrationTests {

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void passwordInTheUrlOfAnUnreachableServerIsNotShown(CapturedOutput output) {
		String url = "nats://a:secret123@127.0.0.1:" + FreePorts.next();
		assertSecretNotShown(startFailure(unstartedServer(), "exactlyonce.nats.servers=" + url), output, "secret123");
	}

	@Test
	void tokenInTheUrlOfAnUnreachableServerIsNotShown(CapturedOutput output) {
		String url = "nats://s3cr3tToken@127.0.0.1:" + FreePorts.next();
		assertSecretNotShown(startFailure(unstartedServer(), "exactlyonce.nats.servers=" + url), output,
				"s3cr3tToken");
	}

	@Test
	void wrongPasswordInTheUrlIsNotShown(CapturedOutput output) {
		NatsServerProcess nats = serverWithPassword();
		String url = "nats://a:wr0ngSecret@127.0.0.1:" + nats.port();
		assertSecretNotShown(startFailure(nats, "exactlyonce.nats.servers=" + url), output, "wr0ngSecret");
	}

	@Test
	void wrongPasswordPropertyIsNotShown(CapturedOutput output) {
		NatsServerProcess nats = serverWithPassword();
		assertSecretNotShown(startFailure(nats, "exactlyonce.nats.username=a",
				"exactlyonce.nats.password=wr0ngSecret"), output, "wr0ngSecret");
	}

	@Test
	void rightPasswordInTheUrlIsNotInTheHealthDetails(CapturedOutput output) {
		NatsServerProcess nats = serverWithPassword();
		TestInstances instances = instances(nats);
		Instance instance = instances.start("web", "exactlyonce.nats.servers=nats://a:r1ghtSecret@127.0.0.1:" + nats.port());
		Health health = instance.bean(ExactlyOnceHealthIndicator.class).health();
		assertThat(health.getDetails().toString()).contains("127.0.0.1:" + nats.port()).doesNotContain("r1ghtSecret");
		assertThat(output).doesNotContain("r1ghtSecret");
	}

	private Throwable startFailure(NatsServerProcess nats, String... properties) {
		Throwable failure = catchThrowable(() -> instances(nats).start("app", properties));
		assertThat(failure).as("start-up failure").isNotNull();
		return failure;
	}

	private static void assertSecretNotShown(Throwable failure, CapturedOutput output, String secret) {
		StringWriter trace = new StringWriter();
		failure.printStackTrace(new PrintWriter(trace));
		assertThat(trace.toString()).as("start-up failure with its causes").contains("NATS").doesNotContain(secret);
		assertThat(output.getAll()).as("log").doesNotContain(secret);
	}

	private NatsServerProcess unstartedServer() {
		NatsServerProcess nats = new NatsServerProcess();
		this.resources.add(nats);
		return nats;
	}

	private NatsServerProcess serverWithPassword() {
		NatsServerProcess nats = new NatsServerProcess() {

			@Override
			protected List<String> command() {
				List<String> command = new ArrayList<>(super.command());
				command.addAll(List.of("--user", "a", "--pass", "r1ghtSecret"));
				return command;
			}

		};
		this.resources.add(nats);
		return nats.start();
	}

	private TestInstances instances(NatsServerProcess nats) {
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

}
