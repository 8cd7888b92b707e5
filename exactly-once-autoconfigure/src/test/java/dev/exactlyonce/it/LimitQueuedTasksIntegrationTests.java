package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.Nats;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.limits.DurableLimits;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.LimitedTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tasks queued at a limit keep their place and run: the task first in line starts when slots are free
 * and a task already queued is queued again in its place, however full by size the key's entry (only
 * an arrival is refused); and a task suspended at a limit whose ticket was replaced by a stale attempt's
 * is still resumed.
 */
class LimitQueuedTasksIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.limits.enabled", "true")
			.with("exactlyonce.limits.calls.rate", "3")
			.with("exactlyonce.limits.calls.per", "2s")
			.with("exactlyonce.limits.deploys.concurrency", "2")
			.with("exactlyonce.consumers.deploys.stream", "TASKS")
			.with("exactlyonce.consumers.deploys.filter-subject", "agents.deploys.tasks.>")
			.with("exactlyonce.consumers.deploys.concurrency", "4")
			.with("exactlyonce.consumers.deploys.max-deliver", "2")
			.with("exactlyonce.consumers.deploys.retry-delay", "500ms")
			.with("exactlyonce.consumers.calls.stream", "TASKS")
			.with("exactlyonce.consumers.calls.filter-subject", "agents.calls.tasks.>")
			.with("exactlyonce.store.lease", "3s");
	}

	@BeforeEach
	void forgetWhatWasSeen() {
		LimitedTaskHandler.reset();
	}

	/**
	 * A key's entry as full by size as an arrival may leave it (a few bytes under the server's max_payload
	 * less 512): nobody holds a slot (both of concurrency 2 are free), the task {@code d-head} is first in
	 * the queue, more than 8,000 tasks wait behind it. When {@code d-head} looks again its turn has come:
	 * its start (a holder with a 36-character token replaces its waiter) makes the entry a few bytes
	 * larger, and is written all the same; it runs (were it refused, it would be dead-lettered as "limit
	 * queue full" and keep its place, so that nobody behind it started until its place expired).
	 */
	@Test
	void theTaskFirstInLineStartsWhenSlotsAreFreeHoweverFullTheEntry() throws Exception {
		Instance a = this.instances.start("a");
		int behind = seedQueueFullBySize("svc-head", "", "deploys:d-head");
		publishDeploy(a, "d-head", "svc-head");
		IdempotencyRecord record = awaitFinal(a, "deploys:d-head", Duration.ofSeconds(60));
		assertThat(behind).as("tasks queued behind it").isGreaterThan(8000);
		assertThat(record.state()).as("the task first in line, both slots free: " + record.resultSummary())
			.isEqualTo(RecordState.COMPLETED);
		assertThat(LimitedTaskHandler.starts("svc-head")).containsExactly("d-head");
	}

	/**
	 * A task already queued: both slots are held (leases an hour away, to the nanosecond), the task
	 * {@code d-queued} is first in the queue (its times to the second), the entry is a few bytes under
	 * max_payload less 512. When {@code d-queued} looks again (it is delivered), it is still not its turn;
	 * it is queued again in its place with a new deadline, now to the nanosecond, which makes the entry
	 * a few bytes larger: it keeps its place (docs/limits.md), suspended, WAITING, not dead-lettered.
	 */
	@Test
	void aTaskAlreadyQueuedIsQueuedAgainInItsPlaceHoweverFullTheEntry() throws Exception {
		Instance a = this.instances.start("a");
		Instant leaseEnds = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS).plusNanos(123456789);
		String holders = "{\"task\":\"deploys:h-1\",\"token\":\"t1\",\"until\":\"" + leaseEnds + "\"},"
				+ "{\"task\":\"deploys:h-2\",\"token\":\"t2\",\"until\":\"" + leaseEnds + "\"}";
		seedQueueFullBySize("svc-queued", holders, "deploys:d-queued");
		publishDeploy(a, "d-queued", "svc-queued");
		IdempotencyRecord record = await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> a.bean(IdempotencyStore.class).find("deploys:d-queued").orElse(null),
					(found) -> found != null && (found.state() == RecordState.WAITING
							|| found.state() == RecordState.DEAD_LETTERED));
		assertThat(record.state()).as("a task already queued, looking again: " + record.resultSummary())
			.isEqualTo(RecordState.WAITING);
	}

	/**
	 * A task suspended at a limit (both slots held by dead holders whose leases end in 8 s) has its
	 * ticket replaced by one of an attempt that had lost its claim (made here by copying its ticket with
	 * another token). A limit's wait is not journaled: the timer issues the waiting attempt's ticket again
	 * from its WAITING record, and a give-back's wake resumes it with the record's token, not the stale
	 * ticket's. It runs once the dead holders' leases end.
	 */
	@Test
	void aTaskAtALimitWhoseTicketWasReplacedByAStaleAttemptsIsStillResumed() throws Exception {
		Instance a = this.instances.start("a");
		Instant leaseEnds = Instant.now().plusSeconds(8);
		String dead = "{\"key\":\"svc-s\",\"holders\":[{\"task\":\"deploys:ghost-1\",\"token\":\"t1\",\"until\":\""
				+ leaseEnds + "\"},{\"task\":\"deploys:ghost-2\",\"token\":\"t2\",\"until\":\"" + leaseEnds + "\"}],"
				+ "\"starts\":[],\"queue\":[]}";
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.keyValue(DurableLimits.BUCKET).put(entryKey("deploys", "svc-s"), dead.getBytes(StandardCharsets.UTF_8));
		}
		publishDeploy(a, "d-stuck", "svc-s");
		await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> a.bean(IdempotencyStore.class).find("deploys:d-stuck").orElse(null),
					(record) -> record != null && record.state() == RecordState.WAITING);
		StaleTicket.replace(this.nats.url(), "deploys:d-stuck");
		IdempotencyRecord record = awaitFinal(a, "deploys:d-stuck", Duration.ofSeconds(40));
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(LimitedTaskHandler.starts("svc-s")).containsExactly("d-stuck");
	}

	/**
	 * The queue ahead of a task vanishes without starting (20 waiters whose tasks never come back, e.g.
	 * discarded: their places expire in 3 s) and both slots are held by dead holders (leases end in 2 s).
	 * The task arrives 20th in line: its next look is a round of leases (3 s) per 2 places away, ~32 s.
	 * The key is idle from ~3 s on; the task should run within a few seconds of it, as a task behind dead
	 * holders does.
	 */
	@Test
	void aTaskWhoseQueueAheadVanishedRunsSoonAfter() throws Exception {
		Instance a = this.instances.start("a");
		Instant now = Instant.now();
		Instant leaseEnds = now.plusSeconds(2);
		Instant placesExpire = now.plusSeconds(3);
		StringBuilder json = new StringBuilder("{\"key\":\"svc-gone\",\"holders\":[{\"task\":\"deploys:ghost-1\","
				+ "\"token\":\"t1\",\"until\":\"" + leaseEnds + "\"},{\"task\":\"deploys:ghost-2\",\"token\":\"t2\","
				+ "\"until\":\"" + leaseEnds + "\"}],\"starts\":[],\"queue\":[");
		for (int n = 0; n < 20; n++) {
			json.append((n > 0) ? "," : "").append(waiter("deploys:gone-" + n, now, placesExpire));
		}
		json.append("]}");
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.keyValue(DurableLimits.BUCKET)
				.put(entryKey("deploys", "svc-gone"), json.toString().getBytes(StandardCharsets.UTF_8));
		}
		publishDeploy(a, "d-behind", "svc-gone");
		IdempotencyRecord record = awaitFinal(a, "deploys:d-behind", Duration.ofSeconds(60));
		Instant completed = Instant.now();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(Duration.between(placesExpire, completed)).as("ran soon after the key became idle")
			.isLessThan(Duration.ofSeconds(8));
	}

	/**
	 * Seeds the entry of a key as the guard leaves a queue full by size: the key kept, the holders given,
	 * the head waiter {@code head} (its times to the second), then as many waiters as fit below the
	 * server's max_payload less 512 bytes, less 4.
	 * @return the waiters behind the head
	 */
	private int seedQueueFullBySize(String service, String holders, String head) throws Exception {
		Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		Instant later = now.plus(Duration.ofHours(1));
		StringBuilder json = new StringBuilder("{\"key\":\"" + service + "\",\"holders\":[" + holders
				+ "],\"starts\":[],\"queue\":[")
			.append(waiter(head, now, later));
		int target = 1024 * 1024 - 512 - 4;
		int waiters = 0;
		while (true) {
			String next = "," + waiter("deploys:w-" + waiters, now, later);
			if (json.length() + next.length() + 2 > target) {
				break;
			}
			json.append(next);
			waiters++;
		}
		// pad the last waiter's key so that the entry is exactly 4 bytes under the guard's bound
		int missing = target - (json.length() + 2);
		String last = "deploys:w-" + (waiters - 1);
		int at = json.lastIndexOf(last);
		json.replace(at, at + last.length(), last + "x".repeat(missing));
		json.append("]}");
		assertThat(json.length()).isEqualTo(target);
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.keyValue(DurableLimits.BUCKET)
				.put(entryKey("deploys", service), json.toString().getBytes(StandardCharsets.UTF_8));
		}
		return waiters;
	}

	private static String waiter(String task, Instant since, Instant until) {
		return "{\"task\":\"" + task + "\",\"since\":\"" + since + "\",\"until\":\"" + until + "\"}";
	}

	private static void publishDeploy(Instance instance, String taskId, String service) {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.deploys.tasks.run", new TaskAssignment(taskId, service, "deploy", Map.of()), taskId);
	}

	private static IdempotencyRecord awaitFinal(Instance instance, String storeKey, Duration atMost) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(atMost)
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null
					&& (record.state() == RecordState.COMPLETED || record.state() == RecordState.DEAD_LETTERED));
	}

	private static String entryKey(String limit, String key) throws Exception {
		byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
		return limit + "." + HexFormat.of().formatHex(digest);
	}

}
