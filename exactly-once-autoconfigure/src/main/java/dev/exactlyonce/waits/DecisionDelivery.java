package dev.exactlyonce.waits;

import java.time.Clock;
import java.util.Optional;

import io.nats.client.api.MessageInfo;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepState;

/**
 * Stores the decision of a task's wait and resumes the task when it waits for it: what a signal
 * does ({@link ExactlyOnceSignals}), and what a child task's result does for its parent. A decision
 * is stored before anything else, by a compare-and-set that the wait's timeout and other senders
 * race with, so it is kept when the task has not reached the wait yet and is never both taken and
 * timed out. A failure (NATS or the store not answering) leaves it stored or not, never taken and
 * lost: deliver it again with the same id.
 */
public final class DecisionDelivery {

	private final IdempotencyStore store;

	private final WaitDecisions decisions;

	private final WaitTickets tickets;

	private final WaitResumer resumer;

	private final WaitEntries entries;

	private final Clock clock;

	private final WaitObserver observer;

	DecisionDelivery(IdempotencyStore store, WaitDecisions decisions, WaitTickets tickets, WaitResumer resumer,
			WaitEntries entries, Clock clock, WaitObserver observer) {
		this.observer = observer;
		this.store = store;
		this.decisions = decisions;
		this.tickets = tickets;
		this.resumer = resumer;
		this.entries = entries;
		this.clock = clock;
	}

	/**
	 * Stores a decision for a wait of a task and resumes the task if it waits for it.
	 * @param storeKey the task's namespaced key
	 * @param run the run the decision is for, or {@code null} for the task's current run
	 * @param name the wait's (or, for several decisions awaited together, the decision's) name
	 * @param json the payload, as JSON
	 * @param id the decision's id: delivered again with it, it is a {@code DUPLICATE}
	 * @param sender who sends it
	 * @param reason why, or {@code null}
	 * @return what happened ({@code TOO_LATE} also when {@code run} is not the task's run any more)
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer
	 * @throws WaitsUnavailableException when NATS did not answer
	 */
	public SignalOutcome deliver(String storeKey, Integer run, String name, String json, String id, String sender,
			String reason) {
		return deliver(storeKey, run, name, json, id, sender, reason, () -> {
		});
	}

	/**
	 * Stores a decision for a wait of a task and resumes the task if it waits for it, calling
	 * {@code stored} in between: once the decision (this one, or the same one stored by an earlier
	 * sending) is stored, before the task is resumed.
	 * @param storeKey the task's namespaced key
	 * @param run the run the decision is for, or {@code null} for the task's current run
	 * @param name the wait's (or decision's) name
	 * @param json the payload, as JSON
	 * @param id the decision's id
	 * @param sender who sends it
	 * @param reason why, or {@code null}
	 * @param stored called when the decision is stored, before the task is resumed
	 * @return what happened, as {@link #deliver(String, Integer, String, String, String, String, String)} says
	 */
	public SignalOutcome deliver(String storeKey, Integer run, String name, String json, String id, String sender,
			String reason, Runnable stored) {
		Optional<IdempotencyRecord> before = this.store.findWithoutJournal(storeKey);
		if (before.isEmpty()) {
			return SignalOutcome.NO_SUCH_TASK;
		}
		int current = before.get().run();
		WaitKey waitKey = new WaitKey(storeKey, (run != null) ? run : current, name);
		if (run != null && run != current) {
			return this.decisions.find(waitKey).filter((decision) -> decision.isSignal(id)).isPresent()
					? SignalOutcome.DUPLICATE : SignalOutcome.TOO_LATE;
		}
		if (before.get().isFinal()) {
			// sent again after its task took it and finished (its first answer may have been lost): the
			// sender learns that it was taken
			return (took(storeKey, name, id)
					|| this.decisions.find(waitKey).filter((decision) -> decision.isSignal(id)).isPresent())
							? SignalOutcome.DUPLICATE : SignalOutcome.TOO_LATE;
		}
		if (takenByAnEarlierRun(storeKey, current, name, id)) {
			// an earlier run's signal sent again (a retry after a lost answer) never satisfies a later run
			return SignalOutcome.DUPLICATE;
		}
		WaitDecision signal = WaitDecision.signal(id, json, sender, reason, this.clock.instant());
		WaitDecision decided = this.decisions.decide(waitKey, signal);
		if (!decided.isSignal(id)) {
			return SignalOutcome.TOO_LATE;
		}
		stored.run();
		if (decided.equals(signal)) {
			this.observer.onPoint(WaitPoint.DECISION_STORED, storeKey, name);
			return afterStored(storeKey, current, name, decided);
		}
		// sent again (its first sending may have failed after storing it): resume the task if it still waits
		afterStored(storeKey, current, name, decided);
		return SignalOutcome.DUPLICATE;
	}

	/**
	 * Stores a notice for a wait of a run of a task (replacing an earlier one) unless the wait is
	 * decided, and resumes the task if it waits for it: the wait sees the notice but stays undecided,
	 * so a later decision still ends it.
	 * @param storeKey the task's namespaced key
	 * @param run the run the notice is for
	 * @param name the wait's (or decision's) name
	 * @param json the notice, as JSON
	 * @param sender who sends it
	 * @param reason why
	 * @return {@code RESUMED} or {@code BUFFERED} when stored, {@code DUPLICATE} when the wait is
	 * decided already, {@code TOO_LATE} when the task finished or runs another run,
	 * {@code NO_SUCH_TASK}
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer
	 * @throws WaitsUnavailableException when NATS did not answer
	 */
	public SignalOutcome notice(String storeKey, int run, String name, String json, String sender, String reason) {
		Optional<IdempotencyRecord> before = this.store.findWithoutJournal(storeKey);
		if (before.isEmpty()) {
			return SignalOutcome.NO_SUCH_TASK;
		}
		if (before.get().run() != run || before.get().isFinal()) {
			return SignalOutcome.TOO_LATE;
		}
		WaitKey waitKey = new WaitKey(storeKey, run, name);
		if (this.decisions.find(waitKey).isPresent()) {
			return SignalOutcome.DUPLICATE;
		}
		WaitDecision notice = WaitDecision.notice(json, sender, reason, this.clock.instant());
		this.decisions.notice(waitKey, notice);
		return afterStored(storeKey, run, name, notice);
	}

	/** Whether a wait of this name of an earlier run of the task took a signal with this id. */
	private boolean takenByAnEarlierRun(String storeKey, int run, String name, String id) {
		for (int earlier = run - 1; earlier >= 1; earlier--) {
			if (this.decisions.find(new WaitKey(storeKey, earlier, name)).filter((decision) -> decision.isSignal(id))
				.isPresent()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Resumes the task when it waits for this decision: its record is WAITING and its ticket, of the
	 * waiting attempt, names it (or, with no such ticket yet, its journal shows the wait started:
	 * the timer resumes it). Reads the task's record without its journal (a parent of N children is
	 * read N times), and its journal only in the rare cases that need it.
	 */
	private SignalOutcome afterStored(String storeKey, int run, String name, WaitDecision stored) {
		IdempotencyRecord after = this.store.findWithoutJournal(storeKey).orElse(null);
		if (after == null || after.run() != run) {
			return SignalOutcome.TOO_LATE;
		}
		if (after.isFinal()) {
			// the task may have reached its wait, taken this signal and finished since it was stored
			return (stored.signalId() != null && took(storeKey, name, stored.signalId())) ? SignalOutcome.RESUMED
					: SignalOutcome.TOO_LATE;
		}
		if (after.state() != RecordState.WAITING) {
			return SignalOutcome.BUFFERED;
		}
		MessageInfo ticketMessage = this.tickets.latest(storeKey).orElse(null);
		WaitTicket ticket = (ticketMessage != null) ? WaitTicket.readFrom(ticketMessage.getHeaders()) : null;
		if (ticket != null && ticket.token().equals(after.token())) {
			if (!ticket.waitName().equals(name)) {
				return SignalOutcome.BUFFERED;
			}
			if (this.resumer.reopen(ticket, stored.sender(), stored.describe(name))) {
				this.observer.onPoint(WaitPoint.RESUME_RECORDED, storeKey, name);
				this.resumer.publish(ticket, ticketMessage.getHeaders(), ticketMessage.getData());
			}
			return SignalOutcome.RESUMED;
		}
		return find(storeKey).filter((record) -> record.run() == run)
			.flatMap((record) -> record.journal().find(name))
			.filter((entry) -> entry.state() == StepState.STARTED)
			.isPresent() ? SignalOutcome.RESUMED : SignalOutcome.BUFFERED;
	}

	/**
	 * Whether the task's journal shows a wait (or step) of this name, in its current run.
	 * @param storeKey the task's namespaced key
	 * @param name the wait's name
	 * @return {@code false} when it has none or the task is gone
	 */
	boolean journaled(String storeKey, String name) {
		return find(storeKey).flatMap((record) -> record.journal().find(name)).isPresent();
	}

	/** Whether the task's current run ended its wait with this signal (its journal says so). */
	private boolean took(String storeKey, String name, String signalId) {
		return find(storeKey).flatMap((record) -> record.journal().find(name))
			.filter((entry) -> this.entries.tookSignal(entry, signalId))
			.isPresent();
	}

	private Optional<IdempotencyRecord> find(String storeKey) {
		try {
			return this.store.find(storeKey);
		}
		catch (JournalPartMissingException ex) {
			return Optional.ofNullable(ex.record());
		}
	}

}
