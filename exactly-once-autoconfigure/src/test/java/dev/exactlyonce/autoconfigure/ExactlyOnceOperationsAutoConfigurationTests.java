package dev.exactlyonce.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import dev.exactlyonce.dashboard.DashboardResources;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.MonthlyTally;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.publish.ExactlyOncePublisher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The operator tools are configured with the pipeline; the dashboard page only when enabled in a
 * servlet web application.
 */
class ExactlyOnceOperationsAutoConfigurationTests extends NatsContextRunnerTestSupport {

	private static final AtomicInteger names = new AtomicInteger();

	private final WebApplicationContextRunner web = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
				ExactlyOnceStoreAutoConfiguration.class, ExactlyOnceAutoConfiguration.class,
				ExactlyOnceOperationsAutoConfiguration.class, ExactlyOnceDashboardAutoConfiguration.class));

	@Test
	void operatorToolsAreConfiguredAndThePublisherCanResubmit() {
		this.web.withPropertyValues(declaration()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(TaskInspector.class)
				.hasSingleBean(DeadLetterOperations.class)
				.hasSingleBean(TaskResubmitter.class)
				.hasSingleBean(MonthlyTally.class);
			assertThatExceptionOfType(OperationRefusedException.class)
				.isThrownBy(() -> context.getBean(ExactlyOncePublisher.class)
					.resubmit("undeclared", "t-1", "s.x", "{}", "ops", "why"))
				.withMessageContaining("No consumer 'undeclared' is declared");
		});
	}

	@Test
	void dashboardIsServedOnlyWhenEnabled() {
		this.web.withPropertyValues(declaration())
			.run((context) -> assertThat(context).doesNotHaveBean(DashboardResources.class));
		this.web.withPropertyValues(declaration("exactlyonce.dashboard.enabled=true"))
			.run((context) -> assertThat(context).hasSingleBean(DashboardResources.class));
	}

	private static String[] declaration(String... extras) {
		int n = names.incrementAndGet();
		String[] properties = { "exactlyonce.nats.servers=" + nats.url(), "exactlyonce.streams.OPS" + n
				+ ".subjects=ops" + n + ".>", "exactlyonce.consumers.ops" + n + ".stream=OPS" + n };
		String[] all = new String[properties.length + extras.length];
		System.arraycopy(properties, 0, all, 0, properties.length);
		System.arraycopy(extras, 0, all, properties.length, extras.length);
		return all;
	}

}
