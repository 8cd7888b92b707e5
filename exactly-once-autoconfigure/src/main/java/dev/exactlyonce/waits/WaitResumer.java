package dev.exactlyonce.waits;

import java.time.Clock;

import io.nats.client.impl.Headers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.operations.Republisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordChangedException;
import dev.exactlyonce.store.RecordState;

/**
 * Resumes a suspended task whose wait ended: reopens its WAITING record with a
 * {@link OperatorAction.Kind#RESUME} entry in its audit (a compare-and-set on the suspending
 * attempt's token: of a sender and the timer, one reopens it), then publishes its message again to
 * its subject as {@code <key>/resume/<token>}, which the stream stores once. A reopened task whose
 * copy was not published yet (the publisher died or NATS did not answer) is published again by the
 * next look at its ticket, under the same message id.
 */
class WaitResumer {

	private static final Log logger = LogFactory.getLog(WaitResumer.class);

	private final IdempotencyStore store;

	private final Republisher republisher;

	private final Clock clock;

	private final WaitsMeters meters;

	WaitResumer(IdempotencyStore store, Republisher republisher, Clock clock, WaitsMeters meters) {
		this.store = store;
		this.republisher = republisher;
		this.clock = clock;
		this.meters = meters;
	}

	/**
	 * Resumes the task of a ticket, if it still waits where the ticket says, or publishes its copy
	 * again if it was reopened and has not run since.
	 * @param ticket the ticket
	 * @param ticketHeaders the ticket's headers (the task's, with the ticket's)
	 * @param data the task's data
	 * @param sender who ended the wait ({@code timer}, or the signal's sender)
	 * @param reason what ended it
	 * @return whether the task was reopened (now or before) and its copy is published
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer
	 * @throws dev.exactlyonce.operations.OperationRefusedException when the copy was not published
	 */
	boolean resume(WaitTicket ticket, Headers ticketHeaders, byte[] data, String sender, String reason) {
		if (!reopen(ticket, sender, reason)) {
			return false;
		}
		publish(ticket, ticketHeaders, data);
		return true;
	}

	/**
	 * Resumes a task suspended at a limit, from its latest ticket, which may be the ticket of an attempt
	 * that lost its claim and published it after the waiting attempt's: the task is then resumed with
	 * what its WAITING record says (the suspending attempt's token and wait). That cannot resume it
	 * twice: the record is reopened by a compare-and-set on that token, which only the attempt holding
	 * the claim wrote, once per suspension; its copy's message id ({@code <key>/resume/<token>}) is the
	 * one its re-issued ticket would publish, which the stream stores once.
	 * @param latest the task's latest ticket
	 * @param ticketHeaders its headers
	 * @param data the task's data
	 * @param sender who freed the limit
	 * @param reason what freed up
	 * @return whether the task was reopened (now or before) and its copy is published
	 */
	boolean resumeAtLimit(WaitTicket latest, Headers ticketHeaders, byte[] data, String sender, String reason) {
		IdempotencyRecord record = this.store.findWithoutJournal(latest.storeKey()).orElse(null);
		WaitTicket ticket = latest;
		if (record != null && record.state() == RecordState.WAITING && !record.token().equals(latest.token())) {
			ticket = latest.of(record).orElse(latest);
		}
		if (ticket.kind() != WaitTicket.Kind.LIMIT || !reopen(record, ticket, sender, reason)) {
			return false;
		}
		publish(ticket, ticketHeaders, data);
		return true;
	}

	/**
	 * Reopens the task of a ticket with a {@code RESUME} entry, if it still waits where the ticket
	 * says.
	 * @param ticket the ticket
	 * @param sender who ended the wait
	 * @param reason what ended it
	 * @return whether the task is reopened (now or before) and has not run since: its copy is due
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer
	 */
	boolean reopen(WaitTicket ticket, String sender, String reason) {
		return reopen(this.store.findWithoutJournal(ticket.storeKey()).orElse(null), ticket, sender, reason);
	}

	private boolean reopen(IdempotencyRecord found, WaitTicket ticket, String sender, String reason) {
		IdempotencyRecord record = found;
		if (record != null && record.state() == RecordState.WAITING && record.token().equals(ticket.token())) {
			try {
				record = this.store.recordOperatorAction(ticket.storeKey(), ticket.token(),
						new OperatorAction(OperatorAction.Kind.RESUME, record.nextActionNumber(OperatorAction.Kind.RESUME),
								sender, reason, this.clock.instant(), 0));
				this.meters.resumed(ticket.consumer());
				logger.debug("Task '" + ticket.storeKey() + "' resumed: " + reason);
			}
			catch (RecordChangedException ex) {
				record = this.store.findWithoutJournal(ticket.storeKey()).orElse(null);
			}
		}
		return record != null && record.pendingReopen()
			.filter((action) -> action.kind() == OperatorAction.Kind.RESUME)
			.isPresent();
	}

	/**
	 * Publishes the copy of a reopened task as {@code <key>/resume/<token>} (stored once).
	 * @param ticket the ticket
	 * @param ticketHeaders the ticket's headers (the task's, with the ticket's)
	 * @param data the task's data
	 * @throws dev.exactlyonce.operations.OperationRefusedException when the copy was not published
	 */
	void publish(WaitTicket ticket, Headers ticketHeaders, byte[] data) {
		Headers headers = new Headers(ticketHeaders);
		WaitTicket.removeFrom(headers);
		this.republisher.publish(headers, data, ticket.subject(), ticket.stream(), ticket.key(),
				ticket.key() + "/resume/" + ticket.token());
	}

}
