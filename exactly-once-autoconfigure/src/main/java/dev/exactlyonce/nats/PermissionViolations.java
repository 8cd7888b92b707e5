package dev.exactlyonce.nats;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nats.client.Connection;
import io.nats.client.impl.ErrorListenerLoggerImpl;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The connection's error listener: logs what the client reports, as the client's own listener does,
 * and remembers the permission violations the server reported ({@code -ERR 'Permissions
 * Violation for Publish to "<subject>"'}). A request whose publish or reply subscription the
 * server refused never gets an answer, so without it start-up would only see a timeout. A refused
 * pull, ack or advisory subscription gets no answer either and would leave a listener idle: each
 * distinct violation is logged once at ERROR with the subject to allow, and the health indicator
 * reports every one.
 */
public class PermissionViolations extends ErrorListenerLoggerImpl {

	private static final Pattern VIOLATION = Pattern
		.compile("Permissions Violation for (Publish|Subscription) to \"?([^\"\\s]+)\"?", Pattern.CASE_INSENSITIVE);

	private static final Log logger = LogFactory.getLog(PermissionViolations.class);

	/** At most this many distinct violations are kept (a misconfigured user repeats the same few). */
	private static final int KEPT = 100;

	private final AtomicReference<PermissionViolation> first = new AtomicReference<>();

	private final Set<PermissionViolation> reported = ConcurrentHashMap.newKeySet();

	private final AtomicReference<Exception> lastException = new AtomicReference<>();

	@Override
	public void exceptionOccurred(Connection connection, Exception exception) {
		super.exceptionOccurred(connection, exception);
		this.lastException.set(exception);
	}

	/**
	 * The last exception the client reported on this connection: jnats gives the cause of a failed
	 * connect (a TLS handshake refused, a certificate not trusted) only here.
	 * @return the exception, or empty
	 */
	public Optional<Exception> lastException() {
		return Optional.ofNullable(this.lastException.get());
	}

	@Override
	public void errorOccurred(Connection connection, String error) {
		super.errorOccurred(connection, error);
		Matcher violation = (error != null) ? VIOLATION.matcher(error) : null;
		if (violation != null && violation.find()) {
			PermissionViolation refused = new PermissionViolation(
					violation.group(1).equalsIgnoreCase("Publish") ? PermissionViolation.Operation.PUBLISH
							: PermissionViolation.Operation.SUBSCRIBE,
					violation.group(2), inboxPrefix(connection));
			this.first.compareAndSet(null, refused);
			if (this.reported.size() < KEPT && this.reported.add(refused)) {
				logger.error(refused.problem() + "; " + refused.action());
			}
		}
	}

	private static String inboxPrefix(Connection connection) {
		String prefix = (connection != null) ? connection.getOptions().getInboxPrefix() : null;
		return (prefix != null) ? prefix : PermissionViolation.DEFAULT_INBOX_PREFIX;
	}

	/**
	 * The first permission violation reported on this connection.
	 * @return the violation, or empty when there was none
	 */
	public Optional<PermissionViolation> first() {
		return Optional.ofNullable(this.first.get());
	}

	/**
	 * The first permission violation reported on a connection opened with this listener.
	 * @param connection the connection
	 * @return the violation, or empty when there was none or the connection has another listener
	 */
	public static Optional<PermissionViolation> firstOn(Connection connection) {
		if (connection.getOptions().getErrorListener() instanceof PermissionViolations violations) {
			return violations.first();
		}
		return Optional.empty();
	}

	/**
	 * Every permission violation reported on a connection opened with this listener (at most 100).
	 * @param connection the connection
	 * @return the violations, empty when there was none or the connection has another listener
	 */
	public static Set<PermissionViolation> reportedOn(Connection connection) {
		if (connection.getOptions() != null
				&& connection.getOptions().getErrorListener() instanceof PermissionViolations violations) {
			return Set.copyOf(violations.reported);
		}
		return Set.of();
	}

}
