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
		return new ExactlyOnceConfigurationException(what + " failed: " + problem()
				+ " (the server reported a permissions violation, so the request got no answer)", action(), cause);
	}

	/**
	 * What the server refused, in a sentence.
	 * @return e.g. {@code the NATS user may not publish to "$JS.ACK.TASKS.worker.>"}
	 */
	public String problem() {
		return "the NATS user may not " + verb() + " to \"" + this.subject + "\"";
	}

	/**
	 * What to change, in a sentence.
	 * @return the subject to add to which allow list
	 */
	public String action() {
		return "Add \"" + toAllow() + "\" to the " + verb() + " allow list of this user's permissions in the nats-server "
				+ "configuration (README, section Least privilege, lists every subject the starter needs).";
	}

	/**
	 * Whether the subject is one the starter itself needs to work: the JetStream API, acks and
	 * advisories ({@code $JS.}), KV writes ({@code $KV.}) or reply inboxes; refused, they leave a
	 * listener idle or a store unusable. Other subjects are the application's own publishes.
	 * @return {@code true} for the starter's subjects
	 */
	public boolean isStartersOwn() {
		return this.subject.startsWith("$JS.") || this.subject.startsWith("$KV.") || this.subject.startsWith("_INBOX.");
	}

	private String verb() {
		return (this.operation == Operation.PUBLISH) ? "publish" : "subscribe";
	}

}
