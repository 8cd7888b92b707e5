package dev.exactlyonce.it;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
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
 * The waits' timer consumer and the instances holding its tickets: a ticket held by an instance that
 * died comes back to another one after the consumer's ack wait (10 s, 1 minute before), a look that
 * takes longer than the ack wait keeps its ticket with working acks, and a consumer made with the old ack wait
 * is updated at start-up.
 */
class WaitTicketHoldersIntegrationTests extends NatsIntegrationTestSupport {

	private static final String TICKETS = "EXACTLYONCE_WAIT_TICKETS";

	private static final String TIMER = "exactlyonce-wait-timer";

	@Override
	protected void configure(TestInstances instances) {
		instances.withApprovals();
	}

	@Test
	void aTicketHeldByAnInstanceThatDiedComesBackWithinSeconds() throws Exception {
		Instance first = this.instances.start("a", "test.waits.nap=2s");
		publish(first, "t-held");
		awaitRecord(first, "t-held", (record) -> record.state() == RecordState.WAITING);
		first.context().close();

		Instant taken;
		try (Connection holder = Nats.connect(this.nats.url())) {
			JetStreamSubscription subscription = holder.jetStream()
				.subscribe(null, PullSubscribeOptions.fastBind(TICKETS, TIMER));
			// the sleep's ticket, delivered to a client that then dies holding it (never settled)
			List<Message> ticket = await().atMost(Duration.ofSeconds(90))
				.until(() -> subscription.fetch(1, Duration.ofSeconds(1)), (fetched) -> !fetched.isEmpty());
			taken = Instant.now();
			assertThat(ticket.get(0).getSubject()).startsWith("exactlyonce.waits.");
		}

		Instance second = this.instances.start("b");
		IdempotencyRecord resumed = awaitRecord(second, "t-held", (record) -> !record.audit().isEmpty());
		Duration comeBack = Duration.between(taken, Instant.now());
		assertThat(resumed.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUME);
		assertThat(comeBack).as("from the dead holder's take to the sleep's end on another instance")
			.isLessThan(Duration.ofSeconds(30));
	}

	/**
	 * The working acks follow the ack wait the server has: here 3 s, set on the consumer before an
	 * instance that only validates it starts, so that 2.5 ack waits take 7.5 s rather than 25 s.
	 */
	@Test
	void aLookThatTakesLongerThanTheAckWaitKeepsItsTicket() throws Exception {
		Duration ackWait = Duration.ofSeconds(3);
		this.instances.start("deploy").context().close();
		try (Connection connection = Nats.connect(this.nats.url())) {
			setAckWait(connection.jetStreamManagement(), ackWait);
		}
		Instance instance = this.instances.start("a", "exactlyonce.provisioning.mode=validate");
		publish(instance, "t-slow");
		awaitRecord(instance, "t-slow", (record) -> record.state() == RecordState.WAITING);

		instance.storeFaults().holdFindsOf("approvals:t-slow");
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.storeFaults().heldFinds() == 1);
		// the look stuck in the store for 2.5 ack waits: its ticket is not delivered and looked at again
		await().during(ackWait.multipliedBy(5).dividedBy(2))
			.atMost(ackWait.multipliedBy(5).dividedBy(2).plusSeconds(5))
			.until(() -> instance.storeFaults().heldFinds() == 1);
		instance.storeFaults().releaseFinds();

		assertThat(instance.bean(ExactlyOnceSignals.class)
			.signal("approvals", "t-slow", "approval", new Approval(true, "alice"), "s-1")).isEqualTo(SignalOutcome.RESUMED);
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-slow") != null);
		assertThat(handler.result("t-slow")).endsWith("approved by alice");
		assertThat(this.instances.ledger().commitsOf("t-slow")).hasSize(1);
	}

	@Test
	void aTimerConsumerMadeWithTheOldAckWaitIsUpdatedAtStartUpAndKeptWhenOnlyValidated() throws Exception {
		this.instances.start("a").context().close();
		try (Connection connection = Nats.connect(this.nats.url())) {
			JetStreamManagement management = connection.jetStreamManagement();
			assertThat(ackWait(management)).isEqualTo(Duration.ofSeconds(10));
			setAckWait(management, Duration.ofMinutes(1));

			this.instances.start("b", "exactlyonce.provisioning.mode=validate").context().close();
			assertThat(ackWait(management)).as("validate mode changes nothing").isEqualTo(Duration.ofMinutes(1));

			Instance updating = this.instances.start("c");
			assertThat(ackWait(management)).isEqualTo(Duration.ofSeconds(10));
			publish(updating, "t-after");
			awaitRecord(updating, "t-after", (record) -> record.state() == RecordState.WAITING);
			assertThat(updating.bean(ExactlyOnceSignals.class)
				.signal("approvals", "t-after", "approval", new Approval(true, "bob"), "s-1"))
				.isEqualTo(SignalOutcome.RESUMED);
			ApprovalTaskHandler handler = updating.bean(ApprovalTaskHandler.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-after") != null);
		}
	}

	private static void setAckWait(JetStreamManagement management, Duration ackWait) throws Exception {
		management.updateConsumer(TICKETS,
				ConsumerConfiguration.builder(management.getConsumerInfo(TICKETS, TIMER).getConsumerConfiguration())
					.ackWait(ackWait)
					.build());
	}

	private static Duration ackWait(JetStreamManagement management) throws Exception {
		return management.getConsumerInfo(TICKETS, TIMER).getConsumerConfiguration().getAckWait();
	}

	private static void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish("agents.approvals.tasks.post", TaskAssignment.of(taskId), taskId);
	}

	private static IdempotencyRecord awaitRecord(Instance instance, String taskId,
			java.util.function.Predicate<IdempotencyRecord> condition) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.findWithoutJournal("approvals:" + taskId).orElse(null),
					(record) -> record != null && condition.test(record));
	}

}
