package dev.exactlyonce.autoconfigure;

import java.util.List;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection goes where the {@link NatsConnectionDetails} say: the properties by default, an
 * application's (or a service connection's) bean instead of them.
 */
class NatsConnectionDetailsTests extends NatsContextRunnerTestSupport {

	private final ApplicationContextRunner natsOnly = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class));

	@Test
	void withoutABeanTheDetailsComeFromTheProperties() {
		this.natsOnly
			.withPropertyValues("exactlyonce.nats.servers=" + nats.url(), "exactlyonce.nats.username=alice",
					"exactlyonce.nats.password=secret")
			.run((context) -> {
				NatsConnectionDetails details = context.getBean(NatsConnectionDetails.class);
				assertThat(details).isInstanceOf(PropertiesNatsConnectionDetails.class);
				assertThat(details.getServers()).containsExactly(nats.url());
				assertThat(details.getUsername()).isEqualTo("alice");
				assertThat(details.getPassword()).isEqualTo("secret");
				assertThat(details.getToken()).isNull();
			});
	}

	@Test
	void anApplicationsDetailsWinOverTheProperties() {
		this.natsOnly.withPropertyValues("exactlyonce.nats.servers=nats://127.0.0.1:1")
			.withBean(NatsConnectionDetails.class, () -> () -> List.of(nats.url()))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(NatsConnectionDetails.class)
					.doesNotHaveBean(PropertiesNatsConnectionDetails.class);
				Connection connection = context.getBean(Connection.class);
				assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
				assertThat(connection.getConnectedUrl()).isEqualTo(nats.url());
			});
	}

	@Test
	void aFailedConnectionNamesTheBeanItsServersCameFromNotTheProperty() {
		this.natsOnly.withPropertyValues("exactlyonce.nats.connection-timeout=1s")
			.withBean(NatsConnectionDetails.class, () -> () -> List.of("nats://127.0.0.1:1"))
			.run((context) -> {
				assertThat(context).hasFailed();
				ExactlyOnceConfigurationException failure = (ExactlyOnceConfigurationException) cause(
						context.getStartupFailure(), ExactlyOnceConfigurationException.class);
				assertThat(failure.getProblem())
					.contains("Could not connect to NATS at [nats://127.0.0.1:1] (the NatsConnectionDetails bean ")
					.doesNotContain("exactlyonce.nats.servers");
				assertThat(failure.getAction()).doesNotContain("exactlyonce.nats.servers");
			});
	}

}
