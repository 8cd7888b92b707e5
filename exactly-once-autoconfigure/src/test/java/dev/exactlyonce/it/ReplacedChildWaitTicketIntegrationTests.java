package dev.exactlyonce.it;

import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A parent suspended on a child's result whose ticket was replaced by one of an attempt that had lost its
 * claim: the wait timer issues the waiting attempt's ticket again for the child result the parent waits
 * on (as its WAITING record says), not for the {@code awaitAll} ({@code crew}), so the child's result
 * resumes it at once rather than at its timeout.
 */
class ReplacedChildWaitTicketIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.children.parent", "true")
			.with("test.children.child", "true")
			.with("exactlyonce.consumers.ceo.stream", "TASKS")
			.with("exactlyonce.consumers.ceo.filter-subject", "agents.ceo.tasks.>")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.store.lease", "3s");
	}

	/**
	 * The parent awaits 3 children with a timeout of an hour and suspends on the held child 0.
	 * A ticket of another attempt of the parent (one that lost its claim and published its ticket late,
	 * made here by copying the waiting ticket with another token) replaces the waiting one; the timer
	 * issues the waiting attempt's ticket again, for child 0's result. Then child 0 finishes: the parent
	 * resumes and completes.
	 */
	@Test
	void aParentWhoseTicketWasIssuedAgainIsResumedByTheChildItWaitsFor() throws Exception {
		Instance instance = this.instances.start("a", "test.children.held=0");
		instance.bean(ExactlyOncePublisher.class).publish("agents.ceo.tasks.run", TaskAssignment.of("c-stale"), "c-stale");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("ceo:c-stale").orElse(null), (record) -> record != null
					&& record.state() == RecordState.WAITING
					&& record.resultSummary().startsWith("child 'child-0.result' until "));
		String subject = StaleTicket.subject("ceo:c-stale");
		MessageInfo waiting = StaleTicket.replace(this.nats.url(), "ceo:c-stale");
		try (Connection connection = Nats.connect(this.nats.url())) {
			JetStreamManagement streams = connection.jetStreamManagement();
			// the timer issues the waiting attempt's ticket again
			await().atMost(Duration.ofSeconds(30))
				.until(() -> streams.getLastMessage(StaleTicket.STREAM, subject).getSeq() > waiting.getSeq() + 1);
			MessageInfo reissued = streams.getLastMessage(StaleTicket.STREAM, subject);
			assertThat(reissued.getHeaders().getFirst("Exactly-Once-Wait-Token"))
				.isEqualTo(waiting.getHeaders().getFirst("Exactly-Once-Wait-Token"));
			assertThat(reissued.getHeaders().getFirst("Exactly-Once-Wait-Name")).as("what the reissued ticket waits for")
				.isEqualTo("child-0.result");
		}
		assertThat(instance.bean(ExactlyOnceSignals.class).signal("crew", "ceo/c-stale/child-0", "go", "go", "go-0"))
			.isEqualTo(SignalOutcome.RESUMED);
		await().atMost(Duration.ofSeconds(30)).until(() -> store.find("crew:ceo/c-stale/child-0").orElseThrow().state(),
				(state) -> state == RecordState.COMPLETED);
		IdempotencyRecord parent = await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("ceo:c-stale").orElse(null), (record) -> record != null && record.isFinal());
		assertThat(parent.resultSummary()).isEqualTo("done work-c-stale-0,work-c-stale-1,work-c-stale-2");
	}

}
