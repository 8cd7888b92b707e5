package dev.exactlyonce.listener.logging;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs a handler's failures: its exception's type and message on every delivery, and its stack
 * trace the first time a key fails with a failure and again when the key is dead-lettered. Stack
 * traces are rate-limited ({@link TraceBudget}), so a flood of poison messages cannot fill the
 * disk. A payload is never logged; a failure the caller marks as not the handler's (an unreadable
 * payload, whose parser's message may quote it) is logged by type only, without a trace.
 */
public final class HandlerFailureLog {

	private static final Log logger = LogFactory.getLog(HandlerFailureLog.class);

	/** Key-and-failure pairs remembered to trace each once: the oldest are forgotten first. */
	private static final int REMEMBERED = 4096;

	private final Set<String> traced = Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > REMEMBERED;
		}

	});

	private final TraceBudget budget;

	/**
	 * Creates the log with at most {@code traces} stack traces per {@code interval}.
	 * @param traces stack traces allowed per interval
	 * @param interval the interval
	 */
	public HandlerFailureLog(int traces, Duration interval) {
		this.budget = new TraceBudget(traces, interval);
	}

	/**
	 * Logs a failure after which the message is redelivered.
	 * @param where where the message is (stream, consumer, sequence, delivery)
	 * @param key the message's idempotency key
	 * @param failure what the handler threw
	 */
	public void retried(String where, String key, Throwable failure) {
		String line = "Handler failed on the message at " + where + " (key '" + key + "'), redelivery requested: "
				+ text(failure, true);
		boolean first;
		synchronized (this.traced) {
			first = this.traced.add(key + '\u0000' + failure.getClass().getName() + '\u0000' + messageOf(failure));
		}
		warnWithTrace(line, first ? failure : null);
	}

	/**
	 * Logs a message parked in its dead-letter subject, with the trace of the handler's failure.
	 * @param where where the message is
	 * @param subject the dead-letter subject
	 * @param reason why it was dead-lettered
	 * @param failure what the handler threw, or {@code null}
	 * @param handlerFailure whether the handler threw it (else only its type is logged, no trace)
	 */
	public void deadLettered(String where, String subject, String reason, Throwable failure, boolean handlerFailure) {
		String line = "Message at " + where + " dead-lettered to '" + subject + "': " + reason
				+ ((failure != null) ? " (" + text(failure, handlerFailure) + ")" : "");
		Throwable trace = (failure != null && handlerFailure) ? failure : null;
		if (trace != null && this.budget.take()) {
			traced(logger::error, line, trace);
		}
		else {
			logger.error(line + omitted(trace));
		}
	}

	private void warnWithTrace(String line, Throwable trace) {
		if (trace != null && this.budget.take()) {
			traced(logger::warn, line, trace);
		}
		else {
			logger.warn(line + omitted(trace));
		}
	}

	/**
	 * Logs a line with a stack trace, or without it when the logging system cannot print the failure
	 * (its {@code getMessage()} throws, or a cause's does), so that the delivery is still settled.
	 */
	private static void traced(BiConsumer<Object, Throwable> level, String line, Throwable trace) {
		try {
			level.accept(line, trace);
		}
		catch (RuntimeException ex) {
			level.accept(line + " (stack trace left out: the failure could not be printed: " + ex.getClass().getName()
					+ ")", null);
		}
	}

	/** Says why a wanted trace was left out; empty when none was wanted. */
	private String omitted(Throwable trace) {
		return (trace != null) ? " (stack trace left out: " + this.budget.describe() + ")" : "";
	}

	/**
	 * A failure for a log line: its type and, unless withMessage is false, its message.
	 * @param failure the failure
	 * @param withMessage whether to add the message
	 * @return the text
	 */
	static String text(Throwable failure, boolean withMessage) {
		String message = withMessage ? messageOf(failure) : null;
		return failure.getClass().getName() + ((message != null) ? ": " + message : "");
	}

	/**
	 * A failure's message; one whose {@code getMessage()} throws (it formats something it cannot
	 * reach any more) is said to be unreadable, so that logging it never keeps the delivery from
	 * being settled.
	 * @param failure the failure
	 * @return the message, or {@code null} when it has none
	 */
	public static String messageOf(Throwable failure) {
		try {
			return failure.getMessage();
		}
		catch (RuntimeException ex) {
			return "(message unreadable: " + ex.getClass().getName() + ")";
		}
	}

}
