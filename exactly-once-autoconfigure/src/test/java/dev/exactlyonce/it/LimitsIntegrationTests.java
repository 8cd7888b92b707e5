package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.core.NestedExceptionUtils;

import dev.exactlyonce.actuate.ExactlyOnceMeters;
import dev.exactlyonce.actuate.LimitDescriptor;
import dev.exactlyonce.actuate.LimitsHealthIndicator;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.limits.DurableLimits;
import dev.exactlyonce.listener.DeliveryOutcome;
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
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Limits on the default store, NATS KV (and on the stores of subclasses): never more than N tasks of a key at once across two
 * instances, measured by the handler; keys that do not block each other; arrival order per key; a
 * slot whose holder died freed when its lease ends; a rate held over several windows by a step-level
 * limit whose earlier step is not run again; tasks waiting at a limit hold no ack slot.
 */
class LimitsIntegrationTests extends NatsIntegrationTestSupport {

	private static final int MAX_ACK_PENDING = 4;

	private static final String DEPLOYS = "exactlyonce.limits.deploys.concurrency=2";

	@Override
	protected final void configure(TestInstances instances) {
		configureStore(instances);
		instances.with("test.limits.enabled", "true")
			.with("exactlyonce.limits.calls.rate", "3")
			.with("exactlyonce.limits.calls.per", "2s")
			.with("exactlyonce.consumers.deploys.stream", "TASKS")
			.with("exactlyonce.consumers.deploys.filter-subject", "agents.deploys.tasks.>")
			.with("exactlyonce.consumers.deploys.max-ack-pending", MAX_ACK_PENDING)
			.with("exactlyonce.consumers.deploys.concurrency", "4")
			.with("exactlyonce.consumers.calls.stream", "TASKS")
			.with("exactlyonce.consumers.calls.filter-subject", "agents.calls.tasks.>")
			.with("exactlyonce.consumers.calls.concurrency", "4")
			.with("exactlyonce.store.lease", "3s");
	}

	/**
	 * Selects the idempotency store of a subclass (the limits' state is on NATS whatever the store;
	 * the store is read for a dead holder's claim).
	 * @param instances the instances to configure
	 */
	protected void configureStore(TestInstances instances) {
	}

	@BeforeEach
	void forgetWhatWasSeen() {
		LimitedTaskHandler.reset();
	}

	@Test
	void neverMoreThanTheConcurrencyOfAKeyRunAcrossInstancesAndOtherKeysAreNotBlocked() throws Exception {
		Instance a = this.instances.start("a", DEPLOYS);
		Instance b = this.instances.start("b", DEPLOYS);
		List<String> tasks = new ArrayList<>();
		for (int n = 0; n < 100; n++) {
			String service = (n % 10 < 7) ? "svc-a" : "svc-b";
			tasks.add("d-" + n);
			publishDeploy(((n % 2) == 0) ? a : b, "d-" + n, service);
		}
		for (String task : tasks) {
			awaitRecord(a, "deploys:" + task, RecordState.COMPLETED, Duration.ofSeconds(120));
		}
		assertThat(LimitedTaskHandler.mostRunning("svc-a")).as("svc-a at once").isEqualTo(2);
		assertThat(LimitedTaskHandler.mostRunning("svc-b")).as("svc-b at once").isEqualTo(2);
		assertThat(LimitedTaskHandler.starts("svc-a")).hasSize(70).doesNotHaveDuplicates();
		assertThat(LimitedTaskHandler.starts("svc-b")).hasSize(30).doesNotHaveDuplicates();
		List<DeliveryOutcome> outcomes = new ArrayList<>(a.recorder().outcomes());
		outcomes.addAll(b.recorder().outcomes());
		assertThat(outcomes).as("tasks waited at the limit, more than the consumer's ack slots")
			.filteredOn((outcome) -> outcome == DeliveryOutcome.SUSPENDED)
			.hasSizeGreaterThan(MAX_ACK_PENDING);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> probe.drained("TASKS", "deploys"));
		}
	}

	@Test
	void tasksOfAKeyStartInTheOrderTheyReachedTheLimit() throws Exception {
		Instance a = this.instances.start("a", "test.limits.work=1500ms", "exactlyonce.limits.deploys.concurrency=1");
		publishDeploy(a, "f-0", "svc-f");
		await().atMost(Duration.ofSeconds(30)).until(() -> LimitedTaskHandler.starts("svc-f").size() == 1);
		for (int n = 1; n < 6; n++) {
			publishDeploy(a, "f-" + n, "svc-f");
			awaitRecord(a, "deploys:f-" + n, RecordState.WAITING, Duration.ofSeconds(30));
		}
		awaitRecord(a, "deploys:f-5", RecordState.COMPLETED, Duration.ofSeconds(60));
		assertThat(LimitedTaskHandler.starts("svc-f")).containsExactly("f-0", "f-1", "f-2", "f-3", "f-4", "f-5");
		assertThat(LimitedTaskHandler.mostRunning("svc-f")).isEqualTo(1);
	}

	@Test
	void aLimitsHoldersAndQueueAreShownByItsGaugesAndHealthAndItsWaitsTimed() throws Exception {
		Instance a = this.instances.start("a", "test.limits.work=10s", "exactlyonce.limits.deploys.concurrency=1");
		publishDeploy(a, "h-0", "svc-h");
		await().atMost(Duration.ofSeconds(30)).until(() -> LimitedTaskHandler.starts("svc-h").size() == 1);
		for (int n = 1; n < 3; n++) {
			publishDeploy(a, "h-" + n, "svc-h");
			awaitRecord(a, "deploys:h-" + n, RecordState.WAITING, Duration.ofSeconds(30));
		}
		MeterRegistry registry = a.bean(MeterRegistry.class);
		await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
			assertThat(gauge(registry, ExactlyOnceMeters.LIMITS_IN_USE)).as("holders").isEqualTo(1);
			assertThat(gauge(registry, ExactlyOnceMeters.LIMITS_WAITING)).as("queued").isEqualTo(2);
		});
		LimitDescriptor usage = (LimitDescriptor) a.bean(LimitsHealthIndicator.class).health().getDetails().get("deploys");
		assertThat(usage.kind()).isEqualTo("concurrency");
		assertThat(usage.holders()).isEqualTo(1);
		assertThat(usage.waiting()).isEqualTo(2);
		assertThat(usage.oldestWaitingSeconds()).isNotNull();
		assertThat(usage.busiestKeys()).singleElement().satisfies((key) -> {
			assertThat(key.key()).as("the key as the listener gave it").isEqualTo("svc-h");
			assertThat(key.keyKept()).isTrue();
			assertThat(key.entry()).isEqualTo(entryKey("deploys", "svc-h"));
			assertThat(key.holders()).isEqualTo(1);
			assertThat(key.waiting()).isEqualTo(2);
		});
		awaitRecord(a, "deploys:h-2", RecordState.COMPLETED, Duration.ofSeconds(60));
		Timer waits = registry.get(ExactlyOnceMeters.LIMITS_WAIT).tag("limit", "deploys").timer();
		assertThat(waits.count()).as("one sample per start").isEqualTo(3);
		assertThat(waits.max(TimeUnit.SECONDS)).as("h-2 waited for two tasks of 10 s").isGreaterThan(15);
	}

	private static double gauge(MeterRegistry registry, String name) {
		return registry.get(name).tag("limit", "deploys").gauge().value();
	}

	@Test
	void aSlotWhoseHolderDiedIsFreedWhenItsLeaseEnds() throws Exception {
		Instance a = this.instances.start("a", DEPLOYS);
		Instant leaseEnds = Instant.now().plusSeconds(6);
		// what a holder killed with kill -9 leaves: slots whose tasks have no live claim
		String dead = "{\"holders\":[{\"task\":\"deploys:ghost-1\",\"token\":\"t1\",\"until\":\"" + leaseEnds + "\"},"
				+ "{\"task\":\"deploys:ghost-2\",\"token\":\"t2\",\"until\":\"" + leaseEnds + "\"}],"
				+ "\"starts\":[],\"queue\":[]}";
		try (Connection connection = Nats.connect(this.nats.url())) {
			KeyValue bucket = connection.keyValue(DurableLimits.BUCKET);
			bucket.put(entryKey("deploys", "svc-d"), dead.getBytes(StandardCharsets.UTF_8));
		}
		LimitDescriptor seeded = (LimitDescriptor) a.bean(LimitsHealthIndicator.class).health().getDetails().get("deploys");
		assertThat(seeded.busiestKeys()).as("an entry written before entries kept their key").singleElement()
			.satisfies((key) -> {
				assertThat(key.keyKept()).isFalse();
				assertThat(key.key()).contains("its name is a digest of the key");
				assertThat(key.entry()).isEqualTo(entryKey("deploys", "svc-d"));
				assertThat(key.holders()).isEqualTo(2);
			});
		publishDeploy(a, "d-after-death", "svc-d");
		IdempotencyRecord waiting = awaitRecord(a, "deploys:d-after-death", RecordState.WAITING, Duration.ofSeconds(30));
		assertThat(waiting.resultSummary()).as("what the task waits for, as docs/limits.md says it")
			.startsWith("limit 'deploys' key 'svc-d' until ");
		Health health = await().atMost(Duration.ofSeconds(10))
			.until(() -> a.bean(LimitsHealthIndicator.class).health(),
					(read) -> ((LimitDescriptor) read.getDetails().get("deploys")).waiting() == 1);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails().get("deploys")).as("the dead holders' slots, until their lease ends")
			.isInstanceOfSatisfying(LimitDescriptor.class, (limit) -> {
				assertThat(limit.concurrency()).isEqualTo(2);
				assertThat(limit.keys()).isEqualTo(1);
				assertThat(limit.holders()).isEqualTo(2);
			});
		awaitRecord(a, "deploys:d-after-death", RecordState.COMPLETED, Duration.ofSeconds(30));
		Instant completed = Instant.now();
		assertThat(completed).as("ran after the dead holders' lease").isAfter(leaseEnds);
		assertThat(Duration.between(leaseEnds, completed)).as("and within a few seconds of it")
			.isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void anArrivalBeyondTheQueueCapOfAKeyIsDeadLetteredSayingTheLimitTheQueueAndTheFix() throws Exception {
		Instance a = this.instances.start("a", DEPLOYS, "exactlyonce.consumers.deploys.max-deliver=2",
				"exactlyonce.consumers.deploys.retry-delay=500ms");
		int queued = seedFullQueue("svc-full");
		publishDeploy(a, "d-beyond", "svc-full");
		IdempotencyRecord record = awaitRecord(a, "deploys:d-beyond", RecordState.DEAD_LETTERED, Duration.ofSeconds(30));
		assertThat(queued).as("what one KV value of ~1 MiB holds").isGreaterThan(8000);
		assertThat(record.resultSummary()).startsWith("limit queue full on the last attempt: limit 'deploys'")
			.contains("key entry '" + entryKey("deploys", "svc-full") + "'")
			.contains("holds " + queued + " tasks")
			.contains("exactlyonce.limits.deploys.max-waiting=5000")
			.contains("raise exactlyonce.limits.deploys.max-waiting together with the NATS server's max_payload");
		assertThat(LimitedTaskHandler.starts("svc-full")).isEmpty();
	}

	@Test
	void aQueueThatWouldNotFitTheServersMaxPayloadIsRefusedByNameWhateverTheCap() throws Exception {
		Instance a = this.instances.start("a", DEPLOYS, "exactlyonce.limits.deploys.max-waiting=20000",
				"exactlyonce.consumers.deploys.max-deliver=2", "exactlyonce.consumers.deploys.retry-delay=500ms");
		int queued = seedFullQueue("svc-large");
		publishDeploy(a, "d-too-large", "svc-large");
		IdempotencyRecord record = awaitRecord(a, "deploys:d-too-large", RecordState.DEAD_LETTERED, Duration.ofSeconds(30));
		assertThat(record.resultSummary()).startsWith("limit queue full on the last attempt: limit 'deploys'")
			.contains("was not queued: with it, key entry '" + entryKey("deploys", "svc-large") + "'")
			.contains("the NATS server's max_payload less 1536 bytes")
			.contains("(" + (queued + 1) + " tasks queued, 1 holders")
			.contains("lower exactlyonce.limits.deploys.max-waiting");
	}

	/**
	 * Seeds a key's entry of ~1 MiB less 40 bytes: one holder (lease an hour away) and as many waiters as
	 * fit, the most one KV value of a default server holds.
	 * @return the waiters
	 */
	private int seedFullQueue(String service) throws Exception {
		Instant later = Instant.now().plus(Duration.ofHours(1));
		StringBuilder json = new StringBuilder("{\"holders\":[{\"task\":\"deploys:holder\",\"token\":\"t\",\"until\":\""
				+ later + "\"}],\"starts\":[],\"queue\":[");
		int target = 1024 * 1024 - 40;
		int waiters = 0;
		while (true) {
			String waiter = ((waiters > 0) ? "," : "") + "{\"task\":\"deploys:w-" + waiters + "\",\"since\":\""
					+ Instant.now() + "\",\"until\":\"" + later + "\"}";
			if (json.length() + waiter.length() + 2 > target) {
				break;
			}
			json.append(waiter);
			waiters++;
		}
		json.append("]}");
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.keyValue(DurableLimits.BUCKET)
				.put(entryKey("deploys", service), json.toString().getBytes(StandardCharsets.UTF_8));
		}
		return waiters;
	}

	@Test
	void aStepLimitHoldsItsRateOverSeveralWindowsAndEarlierStepsDoNotRunAgain() throws Exception {
		Instance a = this.instances.start("a", DEPLOYS);
		Instance b = this.instances.start("b", DEPLOYS);
		int tasks = 12;
		IntStream.range(0, tasks).forEach((n) -> a.bean(ExactlyOncePublisher.class)
			.publish("agents.calls.tasks.run", TaskAssignment.of("c-" + n), "c-" + n));
		for (int n = 0; n < tasks; n++) {
			awaitRecord(b, "calls:c-" + n, RecordState.COMPLETED, Duration.ofSeconds(60));
		}
		List<Instant> calls = LimitedTaskHandler.calls().stream().sorted().toList();
		assertThat(calls).hasSize(tasks);
		// 3 per 2 s judged on the server's clock: any 3 later calls are at least a window after the first
		// (less 100 ms for the time from the grant to the action, on this machine's clock)
		for (int i = 0; i + 3 < calls.size(); i++) {
			assertThat(Duration.between(calls.get(i), calls.get(i + 3))).as("calls " + i + " to " + (i + 3))
				.isGreaterThan(Duration.ofMillis(1900));
		}
		assertThat(Duration.between(calls.get(0), calls.get(tasks - 1))).as("12 calls at 3 per 2 s")
			.isGreaterThan(Duration.ofMillis(5700));
		assertThat(LimitedTaskHandler.runs("prepare")).as("the step before the limited one ran once per task")
			.isEqualTo(tasks);
		assertThat(LimitedTaskHandler.runs("call")).isEqualTo(tasks);
	}

	@Test
	void aListenerNamingAnUndeclaredLimitFailsStartUpNamingItAndTheProperty() {
		assertThat(startUpFailure(() -> this.instances.start("a")))
			.isInstanceOf(ExactlyOnceConfigurationException.class)
			.hasMessageContaining("LimitedTaskHandler.deploy")
			.hasMessageContaining("limit 'deploys', which is not declared (declared: calls)")
			.hasMessageContaining("exactlyonce.limits.deploys.concurrency");
	}

	@Test
	void aLimitThatLimitsNothingFailsStartUpNamingItsProperty() {
		assertThat(startUpFailure(() -> this.instances.start("a", DEPLOYS, "exactlyonce.limits.calls.rate=0")))
			.isInstanceOf(ExactlyOnceConfigurationException.class)
			.hasMessageContaining("exactlyonce.limits.calls sets concurrency 0 and rate 0");
	}

	/** What made start-up fail, under Spring's wrapping. */
	private static Throwable startUpFailure(ThrowingCallable start) {
		Throwable failure = catchThrowable(start);
		assertThat(failure).as("start-up failed").isNotNull();
		return NestedExceptionUtils.getMostSpecificCause(failure);
	}

	private static void publishDeploy(Instance instance, String taskId, String service) {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.deploys.tasks.run", new TaskAssignment(taskId, service, "deploy", Map.of()), taskId);
	}

	private static IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state,
			Duration atMost) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(atMost)
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

	private static String entryKey(String limit, String key) throws Exception {
		byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
		return limit + "." + java.util.HexFormat.of().formatHex(digest);
	}

}
