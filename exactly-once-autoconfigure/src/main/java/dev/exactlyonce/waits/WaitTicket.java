package dev.exactlyonce.waits;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

import io.nats.client.impl.Headers;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * What a suspended task's ticket says about its wait, carried in the ticket's headers next to the
 * task message's own headers and data.
 *
 * @param storeKey the task's namespaced key
 * @param key the task's key, without namespace
 * @param consumer the consumer that delivered it
 * @param stream the task stream
 * @param subject the subject the task was published on
 * @param token the fencing token of the attempt that suspended it (its WAITING record's token)
 * @param waitName the wait's name
 * @param kind what it waits for
 * @param until its deadline, on the server's clock
 * @param run the task's run
 */
record WaitTicket(String storeKey, String key, String consumer, String stream, String subject, String token,
		String waitName, Kind kind, Instant until, int run) {

	/** The prefix of the ticket's own headers. */
	static final String HEADER_PREFIX = "Exactly-Once-Wait-";

	/** What separates a wait's name from its deadline in {@link #waitingFor()}. */
	private static final String UNTIL = "' until ";

	private static final String[] NAMES = { "Store-Key", "Key", "Consumer", "Stream", "Subject", "Token", "Name",
			"Kind", "Until", "Run" };

	/** What a task waits for. */
	enum Kind {

		/** A signal, or its timeout. */
		SIGNAL,

		/** A time. */
		SLEEP,

		/** A child task's result (one of several, for {@code awaitAll}), or its timeout. */
		CHILD,
		/** A slot or token of a limit ({@code dev.exactlyonce.limits}): looked at again at its deadline. */
		LIMIT;

		/** The kind as {@link WaitSuspension#kind()} says it. */
		String label() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

		/** The kind a suspension names. */
		static Kind of(String label) {
			return valueOf(label.toUpperCase(java.util.Locale.ROOT));
		}

	}

	/** The wait's key in the decisions bucket. */
	WaitKey waitKey() {
		return new WaitKey(this.storeKey, this.run, this.waitName);
	}

	/** What the task waits for, as its record and the logs say it. */
	String waitingFor() {
		return this.kind.label() + " '" + this.waitName + UNTIL + this.until;
	}

	/**
	 * This ticket as the attempt that wrote a WAITING record would have issued it: the record's token and
	 * run, and the wait its summary names ({@link #waitingFor()}, which the suspension wrote), for every
	 * kind of wait, a limit's too (which the journal does not name).
	 * @param waiting the task's WAITING record
	 * @return the ticket, or empty when the summary names no wait
	 */
	Optional<WaitTicket> of(IdempotencyRecord waiting) {
		String summary = waiting.resultSummary();
		int name = (summary != null) ? summary.indexOf(" '") : -1;
		int until = (summary != null) ? summary.lastIndexOf(UNTIL) : -1;
		if (name < 0 || until <= name) {
			return Optional.empty();
		}
		try {
			return Optional.of(new WaitTicket(this.storeKey, this.key, this.consumer, this.stream, this.subject,
					waiting.token(), summary.substring(name + 2, until), Kind.of(summary.substring(0, name)),
					Instant.parse(summary.substring(until + UNTIL.length())), waiting.run()));
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			return Optional.empty();
		}
	}

	/** Writes this ticket's headers. */
	void writeTo(Headers headers) {
		String[] values = { this.storeKey, this.key, this.consumer, this.stream, this.subject, this.token,
				this.waitName, this.kind.name(), this.until.toString(), Integer.toString(this.run) };
		for (int i = 0; i < NAMES.length; i++) {
			HeaderEncoding.put(headers, HEADER_PREFIX + NAMES[i], values[i]);
		}
	}

	/** Removes this ticket's headers, leaving the task message's own. */
	static void removeFrom(Headers headers) {
		for (String name : NAMES) {
			HeaderEncoding.remove(headers, HEADER_PREFIX + name);
		}
	}

	/**
	 * Reads a ticket from its headers.
	 * @return the ticket, or {@code null} when the headers are not a complete ticket's
	 */
	static WaitTicket readFrom(Headers headers) {
		if (headers == null) {
			return null;
		}
		String[] values = new String[NAMES.length];
		for (int i = 0; i < NAMES.length; i++) {
			values[i] = HeaderEncoding.first(headers, HEADER_PREFIX + NAMES[i]);
			if (values[i] == null) {
				return null;
			}
		}
		try {
			return new WaitTicket(values[0], values[1], values[2], values[3], values[4], values[5], values[6],
					Kind.valueOf(values[7]), Instant.parse(values[8]), Integer.parseInt(values[9]));
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			return null;
		}
	}

}
