package dev.exactlyonce.sample;

import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.operations.TaskStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Security recipe of docs/operating.md, as written there, in a real browser: a user in
 * role VIEWER reads the page and is refused a replay (403, said on the page); a user in role OPERATOR
 * replays from the page, and the audit names them. A write without the page's CSRF token (what a
 * forged cross-site request would be) is refused although the credentials are right. An anonymous
 * health check shows the status only, an authenticated one the details ({@code when-authorized}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoint.exactlyonceops.access=unrestricted")
@ActiveProfiles("secured-dashboard")
@DirtiesContext
class SecuredDashboardBrowserIntegrationTests extends DashboardBrowserSupport {

	@Test
	void anOperatorReplaysFromThePageAViewerOnlyReadsAndAForgedWriteIsRefused() throws Exception {
		deadLetterAPoisonTask();
		this.properties.setRejectedTopics(Set.of());
		long sequence = this.deadLetters.list(CONSUMER, 1, 10).get(0).sequence();
		HttpStatusCode forged = RestClient.create("http://localhost:" + this.port)
			.post()
			.uri("/actuator/exactlyonceops/" + CONSUMER + "/deadletters/" + sequence)
			.headers((headers) -> headers.setBasicAuth("operator", "operator-pw"))
			.body("{\"action\":\"replay\",\"reason\":\"forged\"}")
			.header("Content-Type", "application/json")
			.exchange((request, response) -> response.getStatusCode());
		assertThat(forged.value()).isEqualTo(403);
		RestClient health = RestClient.create("http://localhost:" + this.port + "/actuator/health");
		assertThat(health.get().retrieve().body(String.class)).contains("\"status\":\"UP\"").doesNotContain("components");
		assertThat(health.get().headers((headers) -> headers.setBasicAuth("viewer", "viewer-pw")).retrieve()
			.body(String.class)).contains("marketing-task-worker");

		browser("refused", "viewer");
		assertThat(this.deadLetters.list(CONSUMER, 1, 10)).hasSize(1);
		browser("replay", "operator");

		assertThat(this.inspector.task(CONSUMER, "t-poison").orElseThrow().status()).isEqualTo(TaskStatus.COMPLETED);
		assertThat(this.inspector.task(CONSUMER, "t-poison").orElseThrow().audit()).singleElement()
			.satisfies((action) -> assertThat(action.operator()).isEqualTo("operator"));
		assertThat(SCREENSHOTS.resolve("dashboard-viewer-3-refused.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-operator-3-replayed.png")).exists();
	}

	/** The recipe docs/operating.md documents, and two users. */
	@TestConfiguration(proxyBeanMethods = false)
	static class OperationsSecurityConfiguration {

		@Bean
		SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
			return http.securityMatcher(EndpointRequest.toAnyEndpoint())
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers(EndpointRequest.to("health")).permitAll()
					.requestMatchers(HttpMethod.GET, "/actuator/exactlyonce/**", "/actuator/exactlyonceops/**")
					.hasAnyRole("OPERATOR", "VIEWER")
					.requestMatchers(EndpointRequest.to("exactlyonce", "exactlyonceops")).hasRole("OPERATOR")
					.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.spa())
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("operator").password("{noop}operator-pw").roles("OPERATOR").build(),
					User.withUsername("viewer").password("{noop}viewer-pw").roles("VIEWER").build());
		}

	}

}
