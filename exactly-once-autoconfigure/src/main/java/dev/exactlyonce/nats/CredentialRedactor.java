package dev.exactlyonce.nats;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes NATS credentials from text the starter logs, reports or rethrows: the user info of
 * every URL ({@code nats://user:password@host}, {@code nats://token@host}) and every configured
 * password and token, wherever they appear.
 */
public final class CredentialRedactor {

	private static final Pattern URL_USER_INFO = Pattern.compile("(?<=://)[^/@\\s,\\[\\]]*@");

	private static final String MASK = "***";

	private final Set<String> secrets = new LinkedHashSet<>();

	/**
	 * Creates a redactor for the credentials of a connection.
	 * @param settings the connection settings
	 */
	public CredentialRedactor(NatsConnectionSettings settings) {
		addSecret(settings.password());
		addSecret(settings.token());
		for (String server : settings.servers()) {
			Matcher userInfo = URL_USER_INFO.matcher(server);
			if (userInfo.find()) {
				String info = userInfo.group();
				info = info.substring(0, info.length() - 1);
				String secret = info.substring(info.indexOf(':') + 1);
				addSecret(secret);
				addSecret(URLDecoder.decode(secret, StandardCharsets.UTF_8));
			}
		}
	}

	/**
	 * Removes the user info of every URL in a text.
	 * @param text the text, or {@code null}
	 * @return the text without user info
	 */
	public static String withoutUserInfo(String text) {
		return (text != null) ? URL_USER_INFO.matcher(text).replaceAll("") : null;
	}

	/**
	 * Removes the user info of every URL and masks every configured secret in a text.
	 * @param text the text, or {@code null}
	 * @return the text without credentials
	 */
	public String redact(String text) {
		String redacted = withoutUserInfo(text);
		if (redacted == null) {
			return null;
		}
		for (String secret : this.secrets) {
			redacted = redacted.replace(secret, MASK);
		}
		return redacted;
	}

	/**
	 * An exception safe to log or rethrow as a cause: the exception itself when no message in its
	 * chain holds a credential, otherwise a copy of the chain whose messages are redacted and name
	 * the original types, with the original stack traces.
	 * @param exception the exception, or {@code null}
	 * @return the exception or its redacted copy
	 */
	public Throwable redact(Throwable exception) {
		List<Throwable> chain = new ArrayList<>();
		for (Throwable current = exception; current != null && !chain.contains(current); current = current.getCause()) {
			chain.add(current);
		}
		if (chain.stream().noneMatch(this::holdsCredential)) {
			return exception;
		}
		Throwable copy = null;
		for (int i = chain.size() - 1; i >= 0; i--) {
			Throwable original = chain.get(i);
			copy = new RedactedException(original.getClass().getName() + ": " + redact(original.getMessage()), copy);
			copy.setStackTrace(original.getStackTrace());
		}
		return copy;
	}

	private boolean holdsCredential(Throwable exception) {
		String message = exception.getMessage();
		return message != null && !message.equals(redact(message));
	}

	private void addSecret(String secret) {
		if (secret != null && !secret.isEmpty()) {
			this.secrets.add(secret);
		}
	}

	/** A copy of a client exception whose message held a credential. */
	private static final class RedactedException extends Exception {

		RedactedException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
