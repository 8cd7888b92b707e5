package dev.exactlyonce.nats;

import java.util.Arrays;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * A publish or subscription the NATS server refused for lack of permission.
 *
 * @param operation what the connection tried
 * @param subject the subject it was refused
 * @param inboxPrefix the connection's reply inbox prefix, with its trailing dot ({@code _INBOX.} unless
 * {@code exactlyonce.nats.inbox-prefix} names another)
 */
public record PermissionViolation(Operation operation, String subject, String inboxPrefix) {

	/** The reply inbox prefix of a connection that keeps the client's default. */
	public static final String DEFAULT_INBOX_PREFIX = "_INBOX.";

	/** The prefix of the restart takeover's presence subjects, a new one at every start. */
	private static final String PRESENCE_PREFIX = "exactlyonce.instance.";

	/**
	 * A violation on a connection with the default reply inbox prefix.
	 * @param operation what the connection tried
	 * @param subject the subject it was refused
	 */
	public PermissionViolation(Operation operation, String subject) {
		this(operation, subject, DEFAULT_INBOX_PREFIX);
	}

	/** What the connection tried. */
	public enum Operation {

		/** A publish (JetStream API requests, acks, KV writes, tasks and dead letters are publishes). */
		PUBLISH,

		/** A subscription (reply inboxes, advisories). */
		SUBSCRIBE

	}

	/**
	 * What to allow: the pattern that covers every subject of the same kind, not just the one
	 * refused: {@code _INBOX.>} (or the configured prefix's) for a reply inbox, {@code $JS.ACK.<stream>.<consumer>.>} for an ack,
	 * {@code $KV.<bucket>.>} for a key, {@code $JS.FC.<stream>.>} for flow control,
	 * {@code $JS.API.DIRECT.GET.<stream>.>} for a read by subject, the durable consumer's
	 * {@code $JS.API.CONSUMER.CREATE.<stream>.<consumer>.>}, and {@code $JS.API.CONSUMER.CREATE.KV_<bucket>.>}
	 * or {@code ...INFO.KV_<bucket>.>} for a bucket's watchers (their names are random), and
	 * {@code exactlyonce.instance.>} for the restart takeover's presence subject (one per start); else the
	 * subject.
	 * @return the subject or pattern to add to the user's allow list
	 */
	public String toAllow() {
		String[] tokens = this.subject.split("\\.");
		if (this.subject.startsWith(this.inboxPrefix)) {
			return this.inboxPrefix + ">";
		}
		if (this.subject.startsWith(PRESENCE_PREFIX)) {
			return PRESENCE_PREFIX + ">";
		}
		if (this.subject.startsWith("$JS.ACK.") && tokens.length > 4) {
			return prefix(tokens, 4) + ".>";
		}
		if (this.subject.startsWith("$KV.") && tokens.length > 2) {
			return prefix(tokens, 2) + ".>";
		}
		if (this.subject.startsWith("$JS.FC.") && tokens.length > 3) {
			return prefix(tokens, 3) + ".>";
		}
		if (this.subject.startsWith("$JS.API.DIRECT.GET.") && tokens.length > 5) {
			return prefix(tokens, 5) + ".>";
		}
		if (this.subject.startsWith("$JS.API.CONSUMER.CREATE.") || this.subject.startsWith("$JS.API.CONSUMER.INFO.")) {
			boolean bucketWatcher = tokens.length > 4 && tokens[4].startsWith("KV_");
			int kept = bucketWatcher ? 5 : 6;
			if (tokens.length > kept) {
				return prefix(tokens, kept) + ".>";
			}
		}
		return this.subject;
	}

	private static String prefix(String[] tokens, int count) {
		return String.join(".", Arrays.copyOf(tokens, count));
	}

	/**
	 * Whether the refused request creates or changes a stream, a bucket or a durable consumer: what
	 * a provisioner does, and a worker running with provisioning mode {@code validate} never asks.
	 * @return {@code true} for a provisioning request
	 */
	public boolean isProvisioning() {
		return this.subject.startsWith("$JS.API.STREAM.CREATE.") || this.subject.startsWith("$JS.API.STREAM.UPDATE.")
				|| (this.subject.startsWith("$JS.API.CONSUMER.CREATE.") && !this.subject.startsWith("$JS.API.CONSUMER.CREATE.KV_"));
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
		String add = "Add \"" + toAllow() + "\" to the " + verb() + " allow list of this user's permissions in the "
				+ "nats-server configuration (docs/security.md, Least privilege, lists every subject the starter needs)";
		if (isProvisioning()) {
			return add + "; or, if this user is a worker whose streams, buckets and consumers a deploy job provisions "
					+ "(docs/security.md, Least privilege: the worker block), set exactlyonce.provisioning.mode=validate.";
		}
		return add + ".";
	}

	/**
	 * Whether the subject is one the starter itself needs to work: the JetStream API, acks and
	 * advisories ({@code $JS.}), KV writes ({@code $KV.}) or reply inboxes; refused, they leave a
	 * listener idle or a store unusable. Other subjects are the application's own publishes.
	 * @return {@code true} for the starter's subjects
	 */
	public boolean isStartersOwn() {
		return this.subject.startsWith("$JS.") || this.subject.startsWith("$KV.") || this.subject.startsWith(this.inboxPrefix);
	}

	private String verb() {
		return (this.operation == Operation.PUBLISH) ? "publish" : "subscribe";
	}

}
