package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.nats.NatsOptionsCustomizer;
import dev.exactlyonce.nats.PermissionViolations;
import dev.exactlyonce.provision.ProvisioningException;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every auto-configuration branch and start-up error, against a real nats-server.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExactlyOnceAutoConfigurationTests extends NatsContextRunnerTestSupport {

	private static final AtomicInteger names = new AtomicInteger();

	@Test
	void defaultStoreIsNatsKvAndThePipelineIsConfigured() {
		this.runner.withPropertyValues(declaration()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(Connection.class);
			assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(NatsKvIdempotencyStore.class);
			assertThat(context).hasSingleBean(ExactlyOncePublisher.class);
			assertThat(context).hasSingleBean(ExactlyOnceListenerRegistry.class);
			assertThat(context.getBean(Connection.class).keyValueManagement().getBucketNames())
				.contains("exactly-once-idempotency");
		});
	}

	@Test
	void memoryStoreOnlyWhenNamedAndItWarns(CapturedOutput output) {
		this.runner.withPropertyValues(declaration("exactlyonce.store.type=memory")).run((context) -> {
			assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class);
			assertThat(output).contains("exactlyonce.store.type=memory: idempotency records live in this JVM only");
		});
	}

	@Test
	void unknownStoreTypeFailsNamingTheProperty() {
		this.runner.withPropertyValues(declaration("exactlyonce.store.type=cassandra"))
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("exactlyonce.store.type=cassandra (")
				.hasMessageContaining("accepted values are nats-kv, redis, firestore, jdbc, memory"));
	}

	@Test
	void listenerWithTwoPayloadParametersIsAnalysedAsProblemAndFix() {
		this.runner.withUserConfiguration(TwoPayloadsListener.class)
			.withPropertyValues(declaration("test.consumer=%c"))
			.run((context) -> {
				FailureAnalysis analysis = new ExactlyOnceFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).as("failure analysis").isNotNull();
				assertThat(analysis.getDescription()).contains("@ExactlyOnceListener method ")
					.contains("TwoPayloadsHandler.handle(java.lang.String,java.lang.String)")
					.contains("has more than one payload parameter (parameters 0 and 1): a message has one payload");
				assertThat(analysis.getAction()).isEqualTo("Keep one payload parameter; take anything else from "
						+ "ExactlyOnceContext (key, headers, subject, previous attempt) or io.nats.client.Message");
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnConnection() {
		this.runner.withUserConfiguration(UserConnectionConfiguration.class)
			.withPropertyValues(declaration("exactlyonce.nats.servers=nats://127.0.0.1:1"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(Connection.class);
				assertThat(context).hasBean("userConnection").doesNotHaveBean("natsConnection");
			});
	}

	@Test
	void optionsCustomizersChangeTheConnectionInOrderWithoutReplacingIt() {
		this.runner.withPropertyValues(declaration())
			.withBean("first", NatsOptionsCustomizer.class, () -> (builder) -> builder.pingInterval(Duration.ofSeconds(7))
				.connectionName("first"))
			.withBean("second", NatsOptionsCustomizer.class, () -> (builder) -> builder.connectionName("second"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Options options = context.getBean(Connection.class).getOptions();
				assertThat(options.getPingInterval()).isEqualTo(Duration.ofSeconds(7));
				assertThat(options.getConnectionName()).isEqualTo("second");
				assertThat(options.getErrorListener()).as("the starter's own, set after the customizers")
					.isInstanceOf(PermissionViolations.class);
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnStore() {
		this.runner.withBean(IdempotencyStore.class,
				() -> new InMemoryIdempotencyStore(new ClaimRules(java.time.Clock.systemUTC(), Duration.ofHours(1))))
			.withPropertyValues(declaration())
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyStore.class);
				assertThat(context).doesNotHaveBean(NatsKvIdempotencyStore.class);
			});
	}

	@Test
	void unreachableServerIsAnalysedAsProblemPropertyAndFix() {
		this.runner.withPropertyValues("exactlyonce.nats.servers=nats://127.0.0.1:1",
				"exactlyonce.nats.connection-timeout=500ms")
			.run((context) -> {
				FailureAnalysis analysis = new ExactlyOnceFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).as("failure analysis").isNotNull();
				assertThat(analysis.getDescription())
					.startsWith("Could not connect to NATS at [nats://127.0.0.1:1] (exactlyonce.nats.servers)");
				assertThat(analysis.getAction()).contains("nats-server -js").contains("exactlyonce.nats.servers");
			});
	}

	@Test
	void serverWithoutJetStreamIsAnalysedAsJetStreamOff() {
		try (NatsServerProcess plain = NatsServerProcess.withoutJetStream().start()) {
			this.runner.withPropertyValues("exactlyonce.nats.servers=" + plain.url(),
					"exactlyonce.streams.TASKS.subjects=t.>", "exactlyonce.consumers.w.stream=TASKS")
				.run((context) -> {
					FailureAnalysis analysis = new ExactlyOnceFailureAnalyzer().analyze(context.getStartupFailure());
					assertThat(analysis).as("failure analysis").isNotNull();
					assertThat(analysis.getDescription()).contains("JetStream is not enabled on the NATS server at "
							+ plain.url()).doesNotContain("exactlyonce.streams.DEAD_LETTERS");
					assertThat(analysis.getAction()).contains("nats-server -js").contains("jetstream");
				});
		}
	}

	@Test
	void unreachableServerFailsNamingTheProperty() {
		this.runner.withPropertyValues("exactlyonce.nats.servers=nats://127.0.0.1:1",
				"exactlyonce.nats.connection-timeout=500ms")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Could not connect to NATS at [nats://127.0.0.1:1] (exactlyonce.nats.servers)"));
	}

	@Test
	void workingAckIntervalMustStayBelowTheAckWait() {
		assertStartupError(declaration("exactlyonce.consumers.%c.ack-wait=10s",
				"exactlyonce.consumers.%c.working-ack-interval=10s"),
				".working-ack-interval is 10s but the effective ack wait is 10s",
				"working-ack-interval below 10s");
	}

	@Test
	void withBackoffTheFirstEntryIsTheAckWaitTheIntervalMustBeat() {
		assertStartupError(declaration("exactlyonce.consumers.%c.ack-wait=1m", "exactlyonce.consumers.%c.backoff=2s,1m",
				"exactlyonce.consumers.%c.working-ack-interval=5s"),
				".working-ack-interval is 5s but the effective ack wait is 2s");
	}

	@Test
	void maxDeliverMustExceedTheBackoffEntries() {
		assertStartupError(declaration("exactlyonce.consumers.%c.backoff=1s,2s,3s", "exactlyonce.consumers.%c.max-deliver=3"),
				".max-deliver is 3 but", "backoff has 3 entries", "max-deliver to at least 4");
	}

	@Test
	void leaseMustOutlastTwoWorkingAcks() {
		assertStartupError(declaration("exactlyonce.consumers.%c.ack-wait=30s",
				"exactlyonce.consumers.%c.working-ack-interval=10s", "exactlyonce.store.lease=15s"),
				"exactlyonce.store.lease is 15s", "at least twice the working-ack interval");
	}

	@Test
	void requestTimeoutMustStayBelowTheLease() {
		assertStartupError(declaration("exactlyonce.nats.request-timeout=30s", "exactlyonce.store.lease=20s",
				"exactlyonce.consumers.%c.working-ack-interval=5s"),
				"exactlyonce.nats.request-timeout is 30s but exactlyonce.store.lease is 20s");
	}

	@Test
	void completedTtlMustOutliveEveryRedelivery() {
		assertStartupError(declaration("exactlyonce.consumers.%c.ack-wait=1h", "exactlyonce.consumers.%c.max-deliver=5",
				"exactlyonce.store.completed-ttl=4h"),
				"exactlyonce.store.completed-ttl is 4h", "can be redelivered for up to 5h");
	}

	@Test
	void consumerMustNameAStream() {
		String consumer = "c" + names.incrementAndGet();
		this.runner.withPropertyValues("exactlyonce.nats.servers=" + nats.url(),
				"exactlyonce.consumers." + consumer + ".ack-wait=30s")
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("Set exactlyonce.consumers." + consumer + ".stream"));
	}

	@Test
	void transactionalListenerOnAStoreOutsideTheDatabaseFailsNamingTheStoreType() {
		this.runner.withUserConfiguration(TransactionalListener.class)
			.withPropertyValues(declaration("exactlyonce.store.type=memory", "test.consumer=%c"))
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("is transactional but exactlyonce.store.type keeps the completion record in "
						+ "'memory', outside the application's database transaction")
				.hasMessageContaining("Set exactlyonce.store.type=jdbc"));
	}

	@Test
	void listenerOnAnUndeclaredConsumerFailsNamingIt() {
		this.runner.withUserConfiguration(UndeclaredConsumerListener.class)
			.withPropertyValues(declaration())
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("names consumer 'not-declared', which is not declared")
				.hasMessageContaining("exactlyonce.consumers.not-declared"));
	}

	@Test
	void validateModeNamesEveryDriftedField() {
		String[] created = declaration("exactlyonce.consumers.%c.max-deliver=5");
		this.runner.withPropertyValues(created).run((context) -> assertThat(context).hasNotFailed());
		List<String> drifted = new ArrayList<>(List.of(created));
		drifted.replaceAll((p) -> p.endsWith("max-deliver=5") ? p.replace("=5", "=3") : p);
		drifted.add("exactlyonce.provisioning.mode=validate");
		String consumer = consumerOf(created);
		this.runner.withPropertyValues(drifted.toArray(String[]::new))
			.run((context) -> assertThat(cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("exactlyonce.consumers." + consumer + ".max-deliver: server 5, declared 3"));
	}

	@Test
	void createOrUpdateFailsNamingAFieldTheServerCannotChange() {
		String[] created = declaration();
		this.runner.withPropertyValues(created).run((context) -> assertThat(context).hasNotFailed());
		String stream = streamOf(created);
		List<String> changed = new ArrayList<>(List.of(created));
		changed.add("exactlyonce.streams." + stream + ".storage=memory");
		this.runner.withPropertyValues(changed.toArray(String[]::new))
			.run((context) -> assertThat(cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("exactlyonce.streams." + stream + ".storage: server file, declared memory")
				.hasMessageContaining("server refused the update"));
	}

	@Test
	void consumerOnAStreamThatIsNeitherDeclaredNorOnTheServerIsAnalysedNamingBothProperties() {
		String consumer = "c" + names.incrementAndGet();
		this.runner.withPropertyValues("exactlyonce.nats.servers=" + nats.url(),
				"exactlyonce.consumers." + consumer + ".stream=NOT_DECLARED")
			.run((context) -> {
				FailureAnalysis analysis = new ProvisioningFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).as("failure analysis").isNotNull();
				assertThat(analysis.getDescription()).contains("Consumer '" + consumer
						+ "' reads stream 'NOT_DECLARED', which does not exist on the server and is not declared")
					.contains("exactlyonce.streams.NOT_DECLARED")
					.contains("exactlyonce.consumers." + consumer + ".stream");
			});
	}

	@Test
	void validateModeFailsOnAMissingStream() {
		String[] declared = declaration("exactlyonce.provisioning.mode=validate");
		this.runner.withPropertyValues(declared)
			.run((context) -> assertThat(cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("Stream '" + streamOf(declared) + "' does not exist")
				.hasMessageContaining("exactlyonce.provisioning.mode=create-or-update"));
	}

	@Test
	void finalListenerMethodFailsStartupNamingBeanMethodAndFix() {
		this.runner.withUserConfiguration(FinalMethodListener.class)
			.withPropertyValues(declaration())
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("bean 'finalHandler'")
				.hasMessageContaining("FinalHandler.handle(java.lang.String)")
				.hasMessageContaining("is final")
				.hasMessageContaining("would run with no claim")
				.hasMessageContaining("Make it non-final and non-private"));
	}

	@Test
	void privateListenerMethodFailsStartupNamingBeanMethodAndFix() {
		this.runner.withUserConfiguration(PrivateMethodListener.class)
			.withPropertyValues(declaration())
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("bean 'privateHandler'")
				.hasMessageContaining("is private")
				.hasMessageContaining("Make it non-final and non-private"));
	}

	@Test
	void aListenerStoresItsKeysUnderTheConsumersDeclaredNamespaceOrItsOwn() {
		String[] declared = declaration("test.consumer=%c", "test.namespace=", "exactlyonce.consumers.%c.namespace=books");
		this.runner.withUserConfiguration(NamespacedListener.class).withPropertyValues(declared).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ExactlyOnceListenerRegistry.class).namespace(consumerOf(declared)))
				.contains("books");
		});
		String[] own = declaration("test.consumer=%c", "test.namespace=ledgers");
		this.runner.withUserConfiguration(NamespacedListener.class)
			.withPropertyValues(own)
			.run((context) -> assertThat(context.getBean(ExactlyOnceListenerRegistry.class).namespace(consumerOf(own)))
				.contains("ledgers"));
		String[] same = declaration("test.consumer=%c", "test.namespace=books", "exactlyonce.consumers.%c.namespace=books");
		this.runner.withUserConfiguration(NamespacedListener.class)
			.withPropertyValues(same)
			.run((context) -> assertThat(context.getBean(ExactlyOnceListenerRegistry.class).namespace(consumerOf(same)))
				.contains("books"));
	}

	@Test
	void aListenersNamespaceOtherThanItsConsumersFailsStartupNamingMethodBothValuesAndProperty() {
		String[] declared = declaration("test.consumer=%c", "test.namespace=ledgers",
				"exactlyonce.consumers.%c.namespace=books");
		this.runner.withUserConfiguration(NamespacedListener.class)
			.withPropertyValues(declared)
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("Listener namespacedHandler.handle (consumer '" + consumerOf(declared)
						+ "') sets namespace 'ledgers' but exactlyonce.consumers." + consumerOf(declared)
						+ ".namespace is 'books'")
				.hasMessageContaining("Remove the namespace attribute of @ExactlyOnceListener and keep exactlyonce.consumers."
						+ consumerOf(declared) + ".namespace"));
	}

	@Test
	void aNamespaceWithAColonWhitespaceOrNothingFailsStartupNamingWhereItIsSet() {
		assertStartupError(declaration("exactlyonce.consumers.%c.namespace=a:b"), ".namespace is 'a:b', which holds ':'",
				"Set exactlyonce.consumers.c");
		assertStartupError(declaration("exactlyonce.consumers.%c.namespace=a b"),
				".namespace is 'a b', which holds whitespace");
		assertStartupError(declaration("exactlyonce.consumers.%c.namespace="), ".namespace is '', which is empty");
		String[] listener = declaration("test.consumer=%c", "test.namespace=books:2");
		this.runner.withUserConfiguration(NamespacedListener.class)
			.withPropertyValues(listener)
			.run((context) -> assertThat(cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class))
				.hasMessageContaining("The namespace of @ExactlyOnceListener on ")
				.hasMessageContaining(".handle (consumer '" + consumerOf(listener) + "') is 'books:2', which holds ':'")
				.hasMessageContaining("Set the namespace of @ExactlyOnceListener on "));
	}

	@Test
	void maxAckPendingDefaultsWellAboveConcurrency() {
		String[] declared = declaration("exactlyonce.consumers.%c.concurrency=4");
		this.runner.withPropertyValues(declared).run((context) -> {
			assertThat(context).hasNotFailed();
			long maxAckPending = context.getBean(Connection.class).jetStreamManagement()
				.getConsumerInfo(streamOf(declared), consumerOf(declared)).getConsumerConfiguration()
				.getMaxAckPending();
			assertThat(maxAckPending).isEqualTo(1000);
		});
	}

	@Test
	void maxAckPendingEqualToConcurrencyWarnsWhatAFailingTaskDoesToTheQueue(CapturedOutput output) {
		String[] declared = declaration("exactlyonce.consumers.%c.concurrency=2",
				"exactlyonce.consumers.%c.max-ack-pending=2", "exactlyonce.consumers.%c.backoff=30s,2m,5m");
		this.runner.withPropertyValues(declared).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("exactlyonce.consumers." + consumerOf(declared)
					+ ".max-ack-pending is 2, the same as its concurrency")
				.contains("a task waiting out its retry delay (up to 5m) keeps its slot")
				.contains("2 failing tasks stop the whole consumer");
		});
	}

	@Test
	void aPipelinedListenerWithMaxAckPendingBelowTwiceConcurrencyWarnsThatWorkersWait(CapturedOutput output) {
		String[] declared = declaration("exactlyonce.consumers.%c.concurrency=2",
				"exactlyonce.consumers.%c.max-ack-pending=3", "exactlyonce.listener.pipelined=true");
		this.runner.withPropertyValues(declared).run((context) -> {
			assertThat(context).hasNotFailed();
			String warning = "Consumer '" + consumerOf(declared) + "': max-ack-pending 3 is below 4, the messages a "
					+ "pipelined listener (exactlyonce.listener.pipelined) keeps in flight with concurrency 2";
			assertThat(output).contains(warning)
				.contains("raise exactlyonce.consumers." + consumerOf(declared) + ".max-ack-pending to 4 or more");
			assertThat(output.getAll().split(java.util.regex.Pattern.quote(warning), -1)).as("logged once").hasSize(2);
		});
	}

	@Test
	void doneDelayCannotBeNegative() {
		assertStartupError(declaration("exactlyonce.steps.done-delay=-5ms"), "exactlyonce.steps.done-delay is PT-0.005S",
				"cannot be negative", "Set exactlyonce.steps.done-delay to 0s");
	}

	/**
	 * A dead process's record expires from the instances bucket an hour after its last write: a
	 * silence that long would never see it silent, so nothing would ever be taken over, in silence.
	 */
	@Test
	void takeoverSilenceMustStayBelowTheInstanceRecordsLife() {
		assertTakeoverStartupError(takeover("exactlyonce.takeover.silence=1h"), "exactlyonce.takeover.silence is PT1H",
				"record expires from the instances bucket 1h after its last write",
				"Set exactlyonce.takeover.silence to 0s or more and below 1h", "exactlyonce.takeover.enabled=false");
		assertTakeoverStartupError(takeover("exactlyonce.takeover.silence=10000000000000000s"),
				"exactlyonce.takeover.silence is PT2777777777777H46M40S", "nothing would ever be taken over");
	}

	/**
	 * Unset, the silence is derived from the NATS timings, which nothing else keeps from being
	 * negative: a negative reconnect wait would take a process over without waiting for any silence.
	 */
	@Test
	void takeoverSilenceDerivedFromTheNatsTimingsCannotBeNegative() {
		assertTakeoverStartupError(takeover("exactlyonce.nats.reconnect-wait=-10s"),
				"exactlyonce.takeover.silence is unset, so twice exactlyonce.nats.reconnect-wait (-10s) + 500ms + "
						+ "exactlyonce.nats.request-timeout (5s): -9s",
				"cannot be negative", "Set exactlyonce.nats.reconnect-wait and exactlyonce.nats.request-timeout to 0s or more");
	}

	private static String[] takeover(String... extras) {
		List<String> properties = new ArrayList<>(
				List.of("exactlyonce.takeover.enabled=true", "exactlyonce.instance-id=pod-0"));
		properties.addAll(List.of(extras));
		return declaration(properties.toArray(String[]::new));
	}

	private void assertStartupError(String[] properties, String... messageParts) {
		assertStartupError(this.runner, properties, messageParts);
	}

	private void assertTakeoverStartupError(String[] properties, String... messageParts) {
		assertStartupError(this.runner.withConfiguration(AutoConfigurations.of(ExactlyOnceTakeoverAutoConfiguration.class)),
				properties, messageParts);
	}

	private static void assertStartupError(ApplicationContextRunner runner, String[] properties, String... messageParts) {
		runner.withPropertyValues(properties).run((context) -> {
			Throwable error = cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class);
			for (String part : messageParts) {
				assertThat(error).hasMessageContaining(part);
			}
		});
	}

	/** A fresh stream S<n> and consumer c<n> (%c in extras stands for the consumer name). */
	private static String[] declaration(String... extras) {
		int n = names.incrementAndGet();
		String stream = "S" + n;
		String consumer = "c" + n;
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + nats.url(),
				"exactlyonce.streams." + stream + ".subjects=s" + n + ".>",
				"exactlyonce.consumers." + consumer + ".stream=" + stream));
		for (String extra : extras) {
			properties.add(extra.replace("%c", consumer));
		}
		return properties.toArray(String[]::new);
	}

	private static String streamOf(String[] declaration) {
		return declaration[1].substring("exactlyonce.streams.".length(), declaration[1].indexOf(".subjects"));
	}

	private static String consumerOf(String[] declaration) {
		return declaration[2].substring("exactlyonce.consumers.".length(), declaration[2].indexOf(".stream"));
	}

	@Configuration(proxyBeanMethods = false)
	static class TransactionalListener {

		@Bean
		Handler transactionalHandler() {
			return new Handler();
		}

		static class Handler {

			@ExactlyOnceListener(consumer = "${test.consumer}", transactional = true)
			public void handle(String payload) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NamespacedListener {

		@Bean
		NamespacedHandler namespacedHandler() {
			return new NamespacedHandler();
		}

		static class NamespacedHandler {

			@ExactlyOnceListener(consumer = "${test.consumer}", namespace = "${test.namespace}")
			public void handle(String payload) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserConnectionConfiguration {

		@Bean(destroyMethod = "close")
		Connection userConnection() throws Exception {
			return Nats.connect(nats.url());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UndeclaredConsumerListener {

		@Bean
		Handler handler() {
			return new Handler();
		}

		static class Handler {

			@ExactlyOnceListener(consumer = "not-declared")
			public void handle(String payload) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FinalMethodListener {

		@Bean
		FinalHandler finalHandler() {
			return new FinalHandler();
		}

		static class FinalHandler {

			@ExactlyOnceListener(consumer = "not-declared")
			public final void handle(String payload) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoPayloadsListener {

		@Bean
		TwoPayloadsHandler twoPayloadsHandler() {
			return new TwoPayloadsHandler();
		}

		static class TwoPayloadsHandler {

			@ExactlyOnceListener(consumer = "${test.consumer}")
			public void handle(String payload, String other) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrivateMethodListener {

		@Bean
		PrivateHandler privateHandler() {
			return new PrivateHandler();
		}

		static class PrivateHandler {

			@ExactlyOnceListener(consumer = "not-declared")
			private void handle(String payload) {
			}

		}

	}

}
