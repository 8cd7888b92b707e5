package dev.exactlyonce.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the NATS connection goes and how it logs in, in Spring Boot's service connection style: a
 * bean of this type (from a Testcontainers or Docker Compose service connection, or the
 * application's own) takes the place of {@code exactlyonce.nats.servers}, {@code username},
 * {@code password} and {@code token}. The other {@code exactlyonce.nats.*} settings (timeouts,
 * TLS, credentials and NKey files) still apply. Without one, they come from the properties.
 */
public interface NatsConnectionDetails extends ConnectionDetails {

	/**
	 * The server URLs, e.g. {@code nats://localhost:4222}; they may carry user info.
	 * @return the URLs
	 */
	List<String> getServers();

	/**
	 * The user name for user/password authentication.
	 * @return the user name, or {@code null} for none
	 */
	default String getUsername() {
		return null;
	}

	/**
	 * The password for user/password authentication.
	 * @return the password, or {@code null} for none
	 */
	default String getPassword() {
		return null;
	}

	/**
	 * The token for token authentication.
	 * @return the token, or {@code null} for none
	 */
	default String getToken() {
		return null;
	}

}
