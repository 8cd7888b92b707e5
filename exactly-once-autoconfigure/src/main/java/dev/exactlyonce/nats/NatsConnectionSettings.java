package dev.exactlyonce.nats;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How to open the NATS connection. Its text form leaves out the password and the token.
 *
 * @param servers the server URLs (may carry user info)
 * @param connectionName the name shown in the server's monitoring
 * @param username the user name for user/password authentication, or {@code null}
 * @param password the password for user/password authentication, or {@code null}
 * @param token the token for token authentication, or {@code null}
 * @param credentialsFile a credentials (JWT + NKey) file, or {@code null}
 * @param nkeyFile a file holding an NKey seed, for NKey authentication without a JWT, or {@code null}
 * @param connectionTimeout the timeout for establishing the connection
 * @param reconnectWait the wait between reconnect attempts
 * @param defaultTls whether to use TLS with the JVM's default context when no other is given
 * @param verifyHostname whether the server's certificate must name the host dialled
 * @param serversOrigin where the servers and login come from, as error messages name it (a
 * property, or a bean that replaces the properties)
 */
public record NatsConnectionSettings(List<String> servers, String connectionName, String username, String password,
		String token, Path credentialsFile, Path nkeyFile, Duration connectionTimeout, Duration reconnectWait, boolean defaultTls,
		boolean verifyHostname, String serversOrigin) {

	public NatsConnectionSettings {
		servers = List.copyOf(servers);
	}

	@Override
	public String toString() {
		return "NatsConnectionSettings[servers=" + CredentialRedactor.withoutUserInfo(this.servers.toString())
				+ ", connectionName=" + this.connectionName + ", username=" + this.username + "]";
	}

}
