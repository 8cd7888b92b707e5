package dev.exactlyonce.it;

import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiting task whose ticket was replaced by the ticket of an attempt that had lost its claim (a
 * zombie that suspended the task after another attempt had: the ticket stream keeps one ticket per
 * task) is not left without one: the timer issues the waiting attempt's ticket again, so a signal
 * answered {@code RESUMED} - stored while the zombie's ticket was the task's only one - resumes the
 * task, once.
 */
class ReplacedWaitTicketIntegrationTests extends NatsIntegrationTestSupport {

	private static final String TICKETS = "EXACTLYONCE_WAIT_TICKETS";

	private static final String TOKEN_HEADER = "Exactly-Once-Wait-Token";

	@Override
	protected void configure(TestInstances instances) {
		instances.withApprovals();
	}

	@Test
	void aTicketAZombieReplacedIsIssuedAgainAndTheSignalItMissedResumesTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("a");
		instance.bean(ExactlyOncePublisher.class).publish("agents.approvals.tasks.post", TaskAssignment.of("t-zombie"),
				"t-zombie");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		IdempotencyRecord waiting = await().atMost(Duration.ofSeconds(30)).ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("approvals:t-zombie").orElse(null),
					(record) -> record != null && record.state() == RecordState.WAITING);

		try (Connection connection = Nats.connect(this.nats.url())) {
			JetStreamManagement management = connection.jetStreamManagement();
			MessageInfo ticket = await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
				.until(() -> management.getMessage(TICKETS, 1), (info) -> info != null);
			assertThat(ticket.getHeaders().getFirst(TOKEN_HEADER)).isEqualTo(waiting.token());
			Headers stale = new Headers(ticket.getHeaders());
			stale.put(TOKEN_HEADER, "token-of-an-attempt-that-lost-its-claim");
			stale.put("Nats-Msg-Id", "approvals:t-zombie/wait/zombie");
			connection.jetStream()
				.publish(NatsMessage.builder().subject(ticket.getSubject()).headers(stale).data(ticket.getData()).build());

			assertThat(instance.bean(ExactlyOnceSignals.class)
				.signal("approvals", "t-zombie", "approval", new Approval(true, "alice"), "s-1"))
				.as("stored as the wait's decision while the task's only ticket is the zombie's")
				.isEqualTo(SignalOutcome.RESUMED);

			ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-zombie") != null);
			assertThat(handler.result("t-zombie")).endsWith("approved by alice");
			assertThat(this.instances.ledger().commitsOf("t-zombie")).hasSize(1);
			IdempotencyRecord completed = await().atMost(Duration.ofSeconds(30))
				.until(() -> store.find("approvals:t-zombie").orElse(null),
						(record) -> record != null && record.state() == RecordState.COMPLETED);
			assertThat(completed.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUME);
			MessageInfo latest = management.getLastMessage(TICKETS, ticket.getSubject());
			assertThat(latest.getHeaders().getFirst(TOKEN_HEADER)).as("the ticket issued again").isEqualTo(waiting.token());
			assertThat(latest.getHeaders().getFirst("Nats-Msg-Id")).contains("/over-");
		}
	}

}
