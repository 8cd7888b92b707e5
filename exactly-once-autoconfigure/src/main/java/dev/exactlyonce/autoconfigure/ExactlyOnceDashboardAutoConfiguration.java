package dev.exactlyonce.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import dev.exactlyonce.dashboard.DashboardResources;

/**
 * Serves the operations dashboard page when {@code exactlyonce.dashboard.enabled=true} in a
 * servlet web application.
 */
@AutoConfiguration(after = ExactlyOnceOperationsAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(WebMvcConfigurer.class)
@ConditionalOnBooleanProperty("exactlyonce.dashboard.enabled")
public final class ExactlyOnceDashboardAutoConfiguration {

	@Bean
	DashboardResources exactlyOnceDashboardResources(ExactlyOnceProperties properties, Environment environment) {
		return new DashboardResources(properties.getDashboard().getPath(),
				environment.getProperty("management.endpoints.web.base-path", "/actuator"));
	}

	@Bean
	RouterFunction<ServerResponse> exactlyOnceDashboardConfig(DashboardResources resources) {
		return resources.configRoute();
	}

}
