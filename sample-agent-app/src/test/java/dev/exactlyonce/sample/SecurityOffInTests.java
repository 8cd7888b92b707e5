package dev.exactlyonce.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Spring Security is on the sample's test classpath only for {@link SecuredDashboardBrowserIntegrationTests}
 * (docs/operating.md's recipe, profile {@code secured-dashboard}); every other test runs the sample as it ships, with
 * nothing secured. Found by the sample's component scan in tests only.
 */
@Configuration(proxyBeanMethods = false)
@Profile("!secured-dashboard")
class SecurityOffInTests {

	@Bean
	SecurityFilterChain openToTests(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.csrf((csrf) -> csrf.disable())
			.build();
	}

}
