package dev.exactlyonce.nats;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nats.client.Connection;
import io.nats.client.impl.ErrorListenerLoggerImpl;

/**
 * The connection's error listener: logs what the client reports, as the client's own listener does,
 * and remembers the first permission violation the server reported ({@code -ERR 'Permissions
 * Violation for Publish to "<subject>"'}). A request whose publish or reply subscription the
 * server refused never gets an answer, so without it start-up would only see a timeout.
 */
public class PermissionViolations extends ErrorListenerLoggerImpl {

	private static final Pattern VIOLATION = Pattern
		.compile("Permissions Violation for (Publish|Subscription) to \"?([^\"\\s]+)\"?", Pattern.CASE_INSENSITIVE);

	private final AtomicReference<PermissionViolation> first = new AtomicReference<>();

	@Override
	public void errorOccurred(Connection connection, String error) {
		super.errorOccurred(connection, error);
		Matcher violation = (error != null) ? VIOLATION.matcher(error) : null;
		if (violation != null && violation.find()) {
			this.first.compareAndSet(null, new PermissionViolation(
					violation.group(1).equalsIgnoreCase("Publish") ? PermissionViolation.Operation.PUBLISH
							: PermissionViolation.Operation.SUBSCRIBE,
					violation.group(2)));
		}
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

}
