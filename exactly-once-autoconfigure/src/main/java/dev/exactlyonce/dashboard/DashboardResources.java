package dev.exactlyonce.dashboard;

import java.util.Map;

import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.function.RequestPredicates;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Serves the operations dashboard: static HTML, CSS and JavaScript from the starter's jar under a
 * path ({@code <path>/index.html}, with {@code <path>} redirecting there), and
 * {@code <path>/config.json} telling the page where the actuator endpoints are. The page reads
 * and writes only through those endpoints, so their exposure and security apply to it.
 */
public class DashboardResources implements WebMvcConfigurer {

	private static final String LOCATION = "classpath:/dev/exactlyonce/dashboard/";

	private final String path;

	private final String actuatorBasePath;

	/**
	 * Creates the resources.
	 * @param path where the page is served ({@code exactlyonce.dashboard.path})
	 * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path})
	 */
	public DashboardResources(String path, String actuatorBasePath) {
		this.path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
		this.actuatorBasePath = actuatorBasePath;
	}

	@Override
	public void addResourceHandlers(ResourceHandlerRegistry registry) {
		registry.addResourceHandler(this.path + "/**").addResourceLocations(LOCATION);
	}

	@Override
	public void addViewControllers(ViewControllerRegistry registry) {
		registry.addRedirectViewController(this.path, this.path + "/index.html");
		registry.addRedirectViewController(this.path + "/", this.path + "/index.html");
	}

	/**
	 * The page's settings, {@code <path>/config.json}: the actuator's path under the application's
	 * context path.
	 * @return the route
	 */
	public RouterFunction<ServerResponse> configRoute() {
		return RouterFunctions.route(RequestPredicates.GET(this.path + "/config.json"),
				(request) -> ServerResponse.ok()
					.body(Map.of("actuator", request.requestPath().contextPath().value() + this.actuatorBasePath)));
	}

}
