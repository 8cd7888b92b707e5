package dev.exactlyonce.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;
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

	private static final Log logger = LogFactory.getLog(ExactlyOnceDashboardAutoConfiguration.class);

	private static final String ACTUATOR_ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	@Bean
	DashboardResources exactlyOnceDashboardResources(ExactlyOnceProperties properties, Environment environment,
			ResourceLoader resourceLoader) {
		if (!ClassUtils.isPresent(ACTUATOR_ENDPOINT, resourceLoader.getClassLoader())) {
			logger.info("exactlyonce.dashboard.enabled=true but Actuator is not on the classpath: the page at "
					+ properties.getDashboard().getPath() + " loads and shows no data. Add "
					+ "org.springframework.boot:spring-boot-starter-actuator and expose the endpoints "
					+ "(management.endpoints.web.exposure.include=exactlyonce,exactlyonceops)");
		}
		return new DashboardResources(properties.getDashboard().getPath(),
				environment.getProperty("management.endpoints.web.base-path", "/actuator"));
	}

	@Bean
	RouterFunction<ServerResponse> exactlyOnceDashboardConfig(DashboardResources resources) {
		return resources.configRoute();
	}

}
