package dev.exactlyonce.nats;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * A publish or subscription the NATS server refused for lack of permission.
 *
 * @param operation what the connection tried
 * @param subject the subject it was refused
 */
public record PermissionViolation(Operation operation, String subject) {

	/** What the connection tried. */
	public enum Operation {

		/** A publish (JetStream API requests, acks, KV writes, tasks and dead letters are publishes). */
		PUBLISH,

		/** A subscription (reply inboxes, advisories). */
		SUBSCRIBE

	}

	/**
	 * What to allow: the subject itself, or {@code _INBOX.>} for a reply inbox (its name is random).
	 * @return the subject or pattern to add to the user's allow list
	 */
	public String toAllow() {
		return this.subject.startsWith("_INBOX.") ? "_INBOX.>" : this.subject;
	}

	/**
	 * The start-up failure this violation explains.
	 * @param what what start-up was doing
	 * @param cause the failure it saw (usually a timeout)
	 * @return the failure, naming the subject and the permission to add
	 */
	public ExactlyOnceConfigurationException toFailure(String what, Throwable cause) {
		String verb = (this.operation == Operation.PUBLISH) ? "publish" : "subscribe";
		return new ExactlyOnceConfigurationException(what + " failed: the NATS user may not " + verb + " to \""
				+ this.subject + "\" (the server reported a permissions violation, so the request got no answer)",
				"Add \"" + toAllow() + "\" to the " + verb + " allow list of this user's permissions in the nats-server "
						+ "configuration (README, section Least privilege, lists every subject the starter needs).",
				cause);
	}

}
