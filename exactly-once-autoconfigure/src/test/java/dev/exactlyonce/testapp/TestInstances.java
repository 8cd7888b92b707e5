package dev.exactlyonce.testapp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;

/**
 * Starts application instances of {@link TestAgentApplication} against a test's NATS server,
 * sharing one {@link Ledger}, and closes them all at the end.
 */
public class TestInstances implements AutoCloseable {

	private final NatsServerProcess nats;

	private final Ledger ledger = new Ledger();

	private final Map<String, String> common = new LinkedHashMap<>();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private final List<PipelineRecorder> recorders = new CopyOnWriteArrayList<>();

	public TestInstances(NatsServerProcess nats) {
		this.nats = nats;
		this.common.put("exactlyonce.nats.servers", nats.url());
		this.common.put("exactlyonce.streams.TASKS.subjects", "agents.*.tasks.>");
		this.common.put("exactlyonce.streams.TASKS.retention", "workqueue");
		this.common.put("exactlyonce.streams.TASKS.duplicate-window", "1h");
		this.common.put("exactlyonce.consumers.worker.stream", "TASKS");
		this.common.put("exactlyonce.consumers.worker.filter-subject", "agents.marketing.tasks.>");
		this.common.put("exactlyonce.consumers.worker.max-deliver", "5");
		this.common.put("exactlyonce.nats.request-timeout", "1s");
		this.common.put("logging.level.dev.exactlyonce", "INFO");
		// the optional Firestore client is on the test classpath; these instances use no Google Cloud
		this.common.put("spring.cloud.gcp.core.enabled", "false");
		this.common.put("spring.cloud.gcp.firestore.enabled", "false");
	}

	/** Sets a property of every instance started afterwards. */
	public TestInstances with(String name, Object value) {
		this.common.put(name, String.valueOf(value));
		return this;
	}

	/**
	 * Enables the listener that waits durably on consumer {@code approvals} ({@link ApprovalTaskHandler}),
	 * its tasks on subjects {@code agents.approvals.tasks.>} of stream {@code TASKS}, the waits' timer
	 * looking again every second.
	 */
	public TestInstances withApprovals() {
		return with("test.waits.enabled", "true").with("exactlyonce.consumers.approvals.stream", "TASKS")
			.with("exactlyonce.consumers.approvals.filter-subject", "agents.approvals.tasks.>")
			.with("exactlyonce.waits.recheck-interval", "1s");
	}

	/**
	 * Enables the transactional listener on consumer {@code posts} ({@link TransactionalPostHandler})
	 * with the JDBC store, whose table it creates; the test names the DataSource.
	 */
	public TestInstances withTransactionalPosts() {
		return with("test.posts.enabled", "true").with("exactlyonce.store.type", "jdbc")
			.with("exactlyonce.store.jdbc.initialize-schema", "always")
			.with("exactlyonce.consumers.posts.stream", "TASKS")
			.with("exactlyonce.consumers.posts.filter-subject", "agents.posts.tasks.>");
	}

	public Ledger ledger() {
		return this.ledger;
	}

	/** Starts an instance; extra properties as {@code name=value}. */
	public Instance start(String instanceName, String... properties) {
		PipelineRecorder recorder = new PipelineRecorder();
		StoreFaults storeFaults = new StoreFaults();
		List<String> all = new ArrayList<>();
		this.common.forEach((name, value) -> all.add(name + "=" + value));
		all.add("test.instance=" + instanceName);
		all.add("exactlyonce.instance-id=" + instanceName);
		all.addAll(List.of(properties));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TestAgentApplication.class)
			.web(WebApplicationType.NONE)
			.properties(all.toArray(String[]::new))
			.initializers((ctx) -> {
				ctx.getBeanFactory().registerSingleton("ledger", this.ledger);
				ctx.getBeanFactory().registerSingleton("pipelineRecorder", recorder);
				ctx.getBeanFactory().registerSingleton("waitPointRecorder", new WaitPointRecorder());
				ctx.getBeanFactory().addBeanPostProcessor(storeFaults);
			})
			.run();
		this.contexts.add(context);
		this.recorders.add(recorder);
		return new Instance(context, recorder, storeFaults);
	}

	/**
	 * The highest delivery count each message reached in any instance started so far (closed ones
	 * included), by stream sequence: a message redelivered to another instance shows here too.
	 * @return stream sequence to highest delivery count seen
	 * @see PipelineRecorder#highestDeliveryCounts()
	 */
	public Map<Long, Long> highestDeliveryCounts() {
		Map<Long, Long> highest = new TreeMap<>();
		this.recorders.forEach((recorder) -> recorder.highestDeliveryCounts()
			.forEach((sequence, count) -> highest.merge(sequence, count, Math::max)));
		return highest;
	}

	@Override
	public void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	/**
	 * A running instance.
	 *
	 * @param context its application context
	 * @param recorder what its pipeline did
	 * @param storeFaults cuts it off from its store for some operations
	 */
	public record Instance(ConfigurableApplicationContext context, PipelineRecorder recorder,
			StoreFaults storeFaults) {

		public <T> T bean(Class<T> type) {
			return this.context.getBean(type);
		}

	}

	public NatsServerProcess nats() {
		return this.nats;
	}

}
