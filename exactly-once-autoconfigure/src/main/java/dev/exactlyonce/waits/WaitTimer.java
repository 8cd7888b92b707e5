package dev.exactlyonce.waits;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.MessageInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreClock;

/**
 * Reads the tickets of suspended tasks from their durable consumer, which every instance shares, so
 * a deadline fires on whichever instance runs, late but at once when none ran at the time. A ticket
 * is looked at when it is stored and again at its deadline (a {@code nakWithDelay}, timed by the
 * server), or after {@code recheck-interval} when that comes first:
 * <ul>
 * <li>its task still waits where the ticket says: resumed when its signal is stored or its deadline
 * passed (the timeout stored as the decision first, so a late signal gets {@code TOO_LATE}), else
 * looked at again later;</li>
 * <li>its task was reopened for this wait and its copy may not be published: published (same id);</li>
 * <li>its task is still being suspended (the ticket is written before the record): looked at again
 * until the record is written or another attempt claims the task, also after the suspending
 * attempt's lease ran out (its write may land late);</li>
 * <li>anything else (the task moved on, its record expired): acknowledged, done.</li>
 * </ul>
 * One thread pulls the tickets; {@value #LOOKERS} threads look at them, each ticket on one of them
 * (the server delivers a ticket again only after its nak), so that deadlines that come due
 * together are not fired one store round trip after the other: one looker resumes a few hundred
 * tasks a second, and 10,000 sleeps ending within 15 seconds fell behind by 18 seconds. It pulls no
 * more tickets than it has lookers free for, and keeps every ticket it holds with working acks
 * ({@link TicketWorkingAcks}) until it is settled: the consumer's ack wait is short, so the tickets
 * an instance held when it died come back to the others within seconds.
 */
public class WaitTimer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(WaitTimer.class);

	private static final int LOOKERS = 8;

	/** The least a ticket sleeps before its next look (a deadline a few ms away is looked at just after it). */
	private static final Duration SHORTEST = Duration.ofMillis(100);

	private static final Duration RETRY = Duration.ofSeconds(5);

	/** How long a ticket of another application's consumer is left before this one looks again. */
	private static final Duration FOREIGN = Duration.ofSeconds(30);

	private final Connection connection;

	private final IdempotencyStore store;

	private final NatsTaskWaits waits;

	private final WaitResumer resumer;

	private final Predicate<String> declared;

	private final Duration ackWait;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private final Semaphore looking = new Semaphore(2 * LOOKERS);

	private volatile ExecutorService lookers;

	private volatile TicketWorkingAcks workingAcks;

	private volatile boolean running;

	WaitTimer(Connection connection, IdempotencyStore store, NatsTaskWaits waits, WaitResumer resumer,
			Predicate<String> declared, Duration ackWait) {
		this.declared = declared;
		this.ackWait = ackWait;
		this.connection = connection;
		this.store = store;
		this.waits = waits;
		this.resumer = resumer;
	}

	@Override
	public void start() {
		this.running = true;
		this.workingAcks = new TicketWorkingAcks(this.ackWait);
		AtomicInteger number = new AtomicInteger();
		this.lookers = Executors.newFixedThreadPool(LOOKERS, (task) -> {
			Thread looker = new Thread(task, "exactlyonce-wait-timer-" + number.incrementAndGet());
			looker.setDaemon(true);
			return looker;
		});
		Thread reader = new Thread(this::readTickets, "exactlyonce-wait-timer");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Stops reading tickets without waiting for the reader: it ends within a second (its pull's
	 * wait); a ticket it is looking at is finished, or looked at again later by any instance (its
	 * working acks stop: it comes back after the consumer's ack wait).
	 */
	@Override
	public void stop() {
		this.running = false;
		ExecutorService handling = this.lookers;
		if (handling != null) {
			handling.shutdown();
		}
		TicketWorkingAcks acks = this.workingAcks;
		if (acks != null) {
			acks.shutdown();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Stops after the listeners (which may still suspend tasks), before the connection closes. */
	@Override
	public int getPhase() {
		return Integer.MAX_VALUE - 2048;
	}

	private void readTickets() {
		JetStreamSubscription subscription = null;
		while (this.running) {
			try {
				if (subscription == null) {
					WaitsSettings settings = this.waits.settings();
					subscription = this.connection.jetStream()
						.subscribe(null, PullSubscribeOptions.fastBind(settings.stream(), settings.timerConsumer()));
				}
				pullAndHandOver(subscription);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.running = false;
			}
			catch (Exception ex) {
				if (!this.running) {
					break;
				}
				this.failures.warn(() -> "Could not read the tickets of waiting tasks from consumer '"
						+ this.waits.settings().timerConsumer() + "': " + ex.getMessage() + "; retrying");
				subscription = null;
				pause();
			}
		}
	}

	/**
	 * Pulls as many tickets as lookers are free for (at least one: waits for it), and hands each over.
	 * A ticket of an earlier pull that arrives late waits for a looker of its own.
	 */
	private void pullAndHandOver(JetStreamSubscription subscription) throws InterruptedException {
		this.looking.acquire();
		int reserved = 1 + this.looking.drainPermits();
		try {
			Iterator<Message> tickets = subscription.iterate(reserved, Duration.ofSeconds(1));
			while (tickets.hasNext()) {
				Message ticket = tickets.next();
				if (reserved > 0) {
					reserved--;
				}
				else {
					this.looking.acquire();
				}
				handOver(ticket);
			}
		}
		finally {
			this.looking.release(reserved);
		}
	}

	/**
	 * Has a looker look at a ticket, holding it with working acks until it is settled; the caller
	 * holds a permit of {@link #looking} for it, given back when the look ends.
	 */
	private void handOver(Message ticket) {
		TicketWorkingAcks.Hold hold = null;
		try {
			hold = this.workingAcks.hold(ticket);
			TicketWorkingAcks.Hold held = hold;
			this.lookers.execute(() -> {
				try {
					look(ticket);
				}
				finally {
					held.close();
					this.looking.release();
				}
			});
		}
		catch (RuntimeException ex) {
			// stopped: the ticket comes back after the consumer's ack wait
			if (hold != null) {
				hold.close();
			}
			this.looking.release();
			throw ex;
		}
	}

	/**
	 * Looks at one ticket; a failure is looked at again in a few seconds. Never throws: an ack or nak
	 * that cannot leave (the connection closing at shutdown, or down) leaves the ticket to come back
	 * after its ack wait. Runs with the thread's interrupt flag cleared (jnats fails requests and skips
	 * acks on an interrupted thread), restored after.
	 */
	void look(Message message) {
		boolean interrupted = Thread.interrupted();
		try {
			lookAndSettle(message);
		}
		catch (RuntimeException ex) {
			if (this.running) {
				this.failures.warn(() -> "Could not settle the ticket at sequence " + message.metaData().streamSequence()
						+ " of stream '" + this.waits.settings().stream() + "' (" + ex.getMessage()
						+ "); it comes back after its ack wait");
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void lookAndSettle(Message message) {
		try {
			message.nakWithDelay(decide(message));
		}
		catch (Done done) {
			message.ack();
		}
		catch (RuntimeException ex) {
			this.failures.warn(() -> "The ticket at sequence " + message.metaData().streamSequence() + " of stream '"
					+ this.waits.settings().stream() + "' could not be handled, looking again in " + RETRY + ": "
					+ ex.getMessage());
			message.nakWithDelay(RETRY);
		}
	}

	/**
	 * Decides what to do with a ticket.
	 * @return when to look again
	 * @throws Done when the ticket has served
	 */
	private Duration decide(Message message) {
		WaitTicket ticket = WaitTicket.readFrom(message.getHeaders());
		if (ticket == null) {
			logger.warn("The message at sequence " + message.metaData().streamSequence() + " of stream '"
					+ this.waits.settings().stream() + "' is not a wait ticket (its Exactly-Once-Wait-* headers are "
					+ "missing or unreadable): acknowledged and ignored");
			throw new Done();
		}
		if (!this.declared.test(ticket.consumer())) {
			this.failures.warn(() -> "The ticket of task '" + ticket.storeKey() + "' names consumer '" + ticket.consumer()
					+ "', which this application does not declare: left for the application that does. Applications "
					+ "sharing an account need their own exactlyonce.waits.stream, subject-prefix, bucket and "
					+ "timer-consumer (docs/waits.md)");
			return FOREIGN;
		}
		IdempotencyRecord record = this.store.findWithoutJournal(ticket.storeKey()).orElseThrow(Done::new);
		StoreClock clock = this.waits.clock();
		if (record.state() == RecordState.WAITING && record.token().equals(ticket.token())) {
			Optional<WaitDecision> ended = ended(ticket, clock);
			if (ended.isEmpty()) {
				return later(Duration.between(clock.earliest(), ticket.until()));
			}
			this.resumer.resume(ticket, message.getHeaders(), message.getData(), ended.get().sender(),
					describe(ticket, ended.get()));
			throw new Done();
		}
		if (record.pendingReopen().filter((action) -> action.kind() == OperatorAction.Kind.RESUME).isPresent()) {
			this.resumer.resume(ticket, message.getHeaders(), message.getData(), WaitDecision.TIMER, "");
			throw new Done();
		}
		if (record.state() == RecordState.WAITING) {
			reissueIfReplaced(ticket, record, message);
			throw new Done();
		}
		if (record.state() == RecordState.IN_PROGRESS && record.token().equals(ticket.token())) {
			// its attempt is writing the WAITING record, which a late write still makes, until another
			// attempt claims the task (its message is redelivered when the attempt died)
			return record.isLiveClaim(Instant.now()) ? Duration.ofSeconds(1) : RETRY;
		}
		throw new Done();
	}

	/**
	 * Issues the waiting attempt's ticket again when this ticket, of another attempt of the task,
	 * replaced it: an attempt that lost its claim (stalled past its lease, while another attempt
	 * took the task over and suspended it) published its ticket after the waiting one's, and the
	 * stream keeps one per task. Without it the waiting task would have no ticket: no deadline, and no
	 * look for a signal its sender could not deliver.
	 */
	private void reissueIfReplaced(WaitTicket stale, IdempotencyRecord record, Message message) {
		WaitTickets tickets = this.waits.tickets();
		Optional<MessageInfo> latest = tickets.latest(stale.storeKey());
		WaitTicket current = latest.map((info) -> WaitTicket.readFrom(info.getHeaders())).orElse(null);
		if (current != null && current.token().equals(record.token())) {
			return;
		}
		// the WAITING record names the wait the task is suspended at, of every kind: the journal names a
		// limit's wait not at all, and an awaitAll's by the awaitAll, not by the child result it waits for
		stale.of(record).ifPresent((waiting) -> {
			tickets.reissue(waiting, message, message.metaData().streamSequence());
			logger.warn("The ticket of task '" + stale.storeKey() + "' was replaced by one of an attempt that had lost "
					+ "its claim; issued again for the waiting attempt (" + waiting.waitingFor() + ")");
		});
	}

	/**
	 * What ended the ticket's wait, or empty while it goes on: a sleep's end, the wait's decision
	 * (its timeout stored when it is due), or a notice for it (which resumes it undecided).
	 */
	private Optional<WaitDecision> ended(WaitTicket ticket, StoreClock clock) {
		boolean due = !clock.earliest().isBefore(ticket.until());
		if (ticket.kind() == WaitTicket.Kind.SLEEP || ticket.kind() == WaitTicket.Kind.LIMIT) {
			return due ? Optional.of(WaitDecision.timedOut(clock.latest())) : Optional.empty();
		}
		WaitDecisions decisions = this.waits.decisions();
		Optional<WaitDecision> decision = decisions.find(ticket.waitKey());
		if (decision.isEmpty() && due) {
			decision = Optional.of(decisions.decide(ticket.waitKey(), WaitDecision.timedOut(clock.latest())));
		}
		return decision.isPresent() ? decision : decisions.findNotice(ticket.waitKey());
	}

	/** What ended a ticket's wait, as the task's audit says it. */
	private static String describe(WaitTicket ticket, WaitDecision ended) {
		return switch (ticket.kind()) {
			case SLEEP -> "sleep '" + ticket.waitName() + "' ended";
			case LIMIT -> "time to look at limit '" + ticket.waitName() + "' again";
			default -> ended.describe(ticket.waitName());
		};
	}

	private Duration later(Duration untilDue) {
		Duration recheck = this.waits.settings().recheckInterval();
		if (untilDue.compareTo(SHORTEST) < 0) {
			return SHORTEST;
		}
		return (untilDue.compareTo(recheck) < 0) ? untilDue : recheck;
	}

	private void pause() {
		try {
			Thread.sleep(RETRY.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
	}

	/** The ticket has served: acknowledge it. */
	private static final class Done extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Done() {
			super(null, null, false, false);
		}

	}

}
