package dev.exactlyonce.testapp;

import java.io.IOException;
import java.security.Principal;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates a request as the user its {@code X-Test-User} header names (enabled by
 * {@code test.web.user-header=true}), so that tests see the principal an endpoint records without a
 * security framework.
 */
@ConditionalOnProperty("test.web.user-header")
public class TestUserFilter extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String user = request.getHeader("X-Test-User");
		if (user == null) {
			chain.doFilter(request, response);
			return;
		}
		Principal principal = () -> user;
		chain.doFilter(new HttpServletRequestWrapper(request) {
			@Override
			public Principal getUserPrincipal() {
				return principal;
			}
		}, response);
	}

}
