package dev.exactlyonce.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.dashboard.DashboardResources;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard page is served when enabled, and says at start-up why it will show no data when
 * Actuator is missing.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExactlyOnceDashboardAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceDashboardAutoConfiguration.class))
		.withBean(ExactlyOnceProperties.class, ExactlyOnceProperties::new)
		.withPropertyValues("exactlyonce.dashboard.enabled=true");

	@Test
	void withoutActuatorThePageIsServedAndStartUpSaysWhyItShowsNoData(CapturedOutput output) {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class)).run((context) -> {
			assertThat(context).hasSingleBean(DashboardResources.class);
			assertThat(output).contains("Actuator is not on the classpath")
				.contains("spring-boot-starter-actuator");
		});
	}

	@Test
	void withActuatorNothingIsSaid(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(DashboardResources.class);
			assertThat(output).doesNotContain("Actuator is not on the classpath");
		});
	}

}
