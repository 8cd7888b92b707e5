package dev.exactlyonce.waits;

import java.time.Duration;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.StoreClock;
import dev.exactlyonce.waits.spi.TaskWaits;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitSuspension;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Durable waits kept on NATS, for every idempotency store: decisions in a KV bucket
 * ({@link WaitDecisions}), one ticket per suspended task on a stream ({@link WaitTickets}, read by
 * {@link WaitTimer}), deadlines on the NATS server's clock. A task suspends in three writes: its
 * ticket, then its WAITING record (fenced by its claim), then a last look for a signal that arrived
 * between the wait's look and the record (its sender saw the task running and left it to the wait).
 */
public class NatsTaskWaits implements TaskWaits {

	private static final Log logger = LogFactory.getLog(NatsTaskWaits.class);

	private final WaitsSettings settings;

	private final WaitDecisions decisions;

	private final WaitTickets tickets;

	private final WaitResumer resumer;

	private final WaitEntries entries;

	private final StoreClock clock;

	NatsTaskWaits(WaitsSettings settings, WaitDecisions decisions, WaitTickets tickets, WaitResumer resumer,
			JsonMapper mapper, StoreClock clock) {
		this.settings = settings;
		this.decisions = decisions;
		this.tickets = tickets;
		this.resumer = resumer;
		this.entries = new WaitEntries(mapper);
		this.clock = clock;
	}

	@Override
	public WaitSession open(WaitingTask task) {
		return new TaskWaitSession(task, this);
	}

	@Override
	public void suspend(WaitingTask task, WaitSuspension suspension) {
		WaitTicket ticket = new WaitTicket(task.storeKey(), task.key(), task.consumer(), task.stream(),
				task.message().getSubject(), task.token(), suspension.waitName(), WaitTicket.Kind.of(suspension.kind()),
				suspension.until(), task.run());
		this.tickets.publish(ticket, task.message());
		Duration left = Duration.between(this.clock.earliest(), suspension.until());
		Duration keptFor = (left.isNegative() ? Duration.ZERO : left).plus(this.settings.recheckInterval().multipliedBy(2));
		task.recordWaiting(Completion.waiting(task.consumer(), task.message().metaData().streamSequence(),
				ticket.waitingFor(), keptFor));
		if (ticket.kind() != WaitTicket.Kind.SLEEP) {
			resumeIfSignalledMeanwhile(task, ticket);
		}
	}

	/**
	 * Resumes a task suspended at a limit ({@code dev.exactlyonce.limits}) now rather than at its
	 * ticket's deadline, if it still waits there (with what its WAITING record says when a stale attempt's
	 * ticket replaced its own).
	 * @param storeKey the task's store key
	 * @param reason what freed up, for its audit
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the ticket, the store or the
	 * stream did not answer (its ticket resumes it at its deadline)
	 */
	void wake(String storeKey, String reason) {
		this.tickets.latest(storeKey).ifPresent((latest) -> {
			WaitTicket ticket = WaitTicket.readFrom(latest.getHeaders());
			if (ticket != null) {
				this.resumer.resumeAtLimit(ticket, latest.getHeaders(), latest.getData(), "limits", reason);
			}
		});
	}

	private void resumeIfSignalledMeanwhile(WaitingTask task, WaitTicket ticket) {
		try {
			this.decisions.find(ticket.waitKey())
				.or(() -> this.decisions.findNotice(ticket.waitKey()))
				.ifPresent((decision) -> this.resumer.resume(ticket, task.message().getHeaders(), task.message().getData(),
						decision.sender(), decision.describe(ticket.waitName())));
		}
		catch (RuntimeException ex) {
			logger.debug("Task '" + ticket.storeKey() + "' suspended; its signal will be found by its ticket: "
					+ ex.getMessage());
		}
	}

	WaitsSettings settings() {
		return this.settings;
	}

	WaitDecisions decisions() {
		return this.decisions;
	}

	WaitTickets tickets() {
		return this.tickets;
	}

	WaitEntries entries() {
		return this.entries;
	}

	StoreClock clock() {
		return this.clock;
	}

	/**
	 * Now on the waits' clock, for deadlines: the latest the server's clock can read.
	 * @return now
	 */
	Instant now() {
		return this.clock.latest();
	}

}
