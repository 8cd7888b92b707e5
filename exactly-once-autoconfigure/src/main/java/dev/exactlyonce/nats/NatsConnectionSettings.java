package dev.exactlyonce.nats;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

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
 * @param inboxPrefix the prefix of the connection's reply inboxes, with its trailing dot ({@code _INBOX.} by
 * default): a worker with a prefix of its own needs to subscribe to its own inboxes only
 * @param serversOrigin where the servers and login come from, as error messages name it (a
 * property, or a bean that replaces the properties)
 */
public record NatsConnectionSettings(List<String> servers, String connectionName, String username, String password,
		String token, Path credentialsFile, Path nkeyFile, Duration connectionTimeout, Duration reconnectWait, boolean defaultTls,
		boolean verifyHostname, String inboxPrefix, String serversOrigin) {

	private static final Pattern INBOX_PREFIX = Pattern.compile("[^.*>\\s]+(\\.[^.*>\\s]+)*\\.?");

	public NatsConnectionSettings {
		servers = List.copyOf(servers);
		inboxPrefix = inboxPrefix(inboxPrefix);
	}

	private static String inboxPrefix(String prefix) {
		if (prefix == null) {
			return PermissionViolation.DEFAULT_INBOX_PREFIX;
		}
		if (!INBOX_PREFIX.matcher(prefix).matches()) {
			throw new ExactlyOnceConfigurationException("exactlyonce.nats.inbox-prefix '" + prefix
					+ "' is not a subject prefix: its tokens must be non-empty, separated by dots, without spaces or the "
					+ "wildcards '*' and '>'", "Set it to a literal prefix such as _INBOX_WORKERS (docs/security.md, "
							+ "Least privilege), or remove it to keep the client's default _INBOX.");
		}
		return prefix.endsWith(".") ? prefix : prefix + ".";
	}

	@Override
	public String toString() {
		return "NatsConnectionSettings[servers=" + CredentialRedactor.withoutUserInfo(this.servers.toString())
				+ ", connectionName=" + this.connectionName + ", username=" + this.username + "]";
	}

}
