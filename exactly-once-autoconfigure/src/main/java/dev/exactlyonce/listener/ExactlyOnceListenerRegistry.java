package dev.exactlyonce.listener;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.children.spi.ChildFailures;
import dev.exactlyonce.children.spi.TaskChildren;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.exhausted.ExhaustedDeliveries;
import dev.exactlyonce.exhausted.ExhaustedMessageSweep;
import dev.exactlyonce.exhausted.UndecodableMessageSweep;
import dev.exactlyonce.limits.spi.TaskLimits;
import dev.exactlyonce.nats.NatsReaderListener;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.waits.spi.TaskWaits;

/**
 * Owns one {@link ListenerContainer} per {@link dev.exactlyonce.annotation.ExactlyOnceListener}
 * method and starts and stops them with the application context. It runs in the last phase, so
 * containers start after every other bean and stop before the NATS connection (a bean destroyed
 * after every lifecycle stopped) closes. Containers stop in parallel, each within
 * {@code exactlyonce.listener.shutdown-timeout}, so the whole stop takes that long at most.
 * When the connection's reader was restarted after a message it could not decode, every consumer is
 * swept for such messages, which are dead-lettered. Every consumer is also swept, at start and
 * then every {@link ExhaustedMessageSweep#INTERVAL}, for messages that ran out of deliveries
 * without being settled; those sweeps and the settlement of such messages run on their own thread.
 */
public class ExactlyOnceListenerRegistry implements SmartLifecycle, DisposableBean, NatsReaderListener {

	private final Connection connection;

	private final Map<String, ConsumerSettings> consumers;

	private final JsonMapper jsonMapper;

	private final ListenerSettings settings;

	private final ScheduledExecutorService scheduler;

	private final ScheduledExecutorService exhaustedScheduler = Executors
		.newSingleThreadScheduledExecutor(ListenerThreads.PLATFORM.factory("exactlyonce-exhausted-deliveries-"));

	private final PipelineObservers observers;

	private final DeliverySettler settler;

	private final ExactlyOnceInterceptor interceptor;

	private final FailureClassifier failures;

	private final KeyResolver keys = new KeyResolver();

	private final IdempotencyStore store;

	private final String owner;

	private final Clock clock;

	private final RawStreamReader rawReader;

	private final Requeue requeue;

	private final CompletionParking parking;

	private final Map<String, ExhaustedDeliveries> exhaustedDeliveries = new LinkedHashMap<>();

	private final Map<String, UndecodableMessageSweep> sweeps = new LinkedHashMap<>();

	private final Map<String, ExhaustedMessageSweep> exhaustedSweeps = new LinkedHashMap<>();

	private ScheduledFuture<?> exhaustedSweep;

	private final Map<String, ListenerContainer> containers = new LinkedHashMap<>();

	private final Map<String, ListenerEndpoint> endpoints = new LinkedHashMap<>();

	private final Map<String, ArgumentResolver> argumentResolvers = new LinkedHashMap<>();

	private volatile boolean running;

	/**
	 * Creates the registry.
	 * @param connection the NATS connection
	 * @param store the idempotency store
	 * @param consumers the resolved settings of every declared consumer, by name
	 * @param jsonMapper the mapper that reads payloads
	 * @param deadLetters the dead-letter publisher
	 * @param steps the durable steps of {@link ExactlyOnceContext#step} and {@link ExactlyOnceContext#publish}
	 * @param observers the pipeline observers, in order
	 * @param settings the settings every listener shares
	 * @param owner this instance's name in claims
	 * @param clock the clock
	 * @param parking where completions the store could not take are parked for the next attempt
	 */
	public ExactlyOnceListenerRegistry(Connection connection, IdempotencyStore store,
			Map<String, ConsumerSettings> consumers, JsonMapper jsonMapper, DeadLetterPublisher deadLetters,
			TaskSteps steps, List<PipelineObserver> observers, ListenerSettings settings, String owner,
			Clock clock, CompletionParking parking) {
		this.connection = connection;
		this.store = store;
		this.owner = owner;
		this.clock = clock;
		this.consumers = Map.copyOf(consumers);
		this.jsonMapper = jsonMapper;
		this.settings = settings;
		this.rawReader = new RawStreamReader(connection, settings.requestTimeout());
		int workers = consumers.values().stream().mapToInt(ConsumerSettings::concurrency).sum();
		Duration shortestInterval = consumers.values()
			.stream()
			.map(ConsumerSettings::workingAckInterval)
			.min(Comparator.naturalOrder())
			.orElse(Duration.ofSeconds(1));
		this.scheduler = WorkingAcks.scheduler(Math.max(2, workers),
				settings.threads().factory("exactlyonce-working-acks-"), shortestInterval);
		steps.useTimer(this.scheduler);
		this.observers = new PipelineObservers(observers);
		this.failures = new FailureClassifier(settings.nonRetryableExceptions())
			.with(List.of(StepInterruptedException.class, StepRejectedException.class));
		this.requeue = new Requeue(connection);
		this.parking = parking;
		this.settler = new DeliverySettler(store, deadLetters, this.requeue, this.observers, settings.ackTimeout(),
				settings.ackMode() == AckMode.SYNC, clock, owner);
		this.interceptor = new ExactlyOnceInterceptor(store, new WorkingAcks(this.scheduler, store, this.observers),
				new CompletionWriter(store, settings.completionRetryTimeout(), settings.resultSummaryMaxLength(),
						parking),
				steps, settings.completionRetryTimeout(),
				this.observers, owner, parking);
	}

	/**
	 * The exactly-once advice applied to listener beans.
	 * @return the interceptor
	 */
	public MethodInterceptor interceptor() {
		return this.interceptor;
	}

	/**
	 * A transactional listener needs the application's transactions and a store that writes the
	 * completion inside them: otherwise its writes and its record would not commit together.
	 */
	private void requireTransactionalCompletion(ListenerEndpoint endpoint) {
		if (!"jdbc".equals(this.store.name())) {
			throw new ExactlyOnceConfigurationException("Listener " + endpoint.describe() + " is transactional but "
					+ "exactlyonce.store.type keeps the completion record in '" + this.store.name()
					+ "', outside the application's database transaction",
					"Set exactlyonce.store.type=jdbc (the records in the application's DataSource), or remove "
							+ "transactional = true and make the handler's writes idempotent.");
		}
		if (!this.interceptor.hasTransactions()) {
			throw new ExactlyOnceConfigurationException("Listener " + endpoint.describe() + " is transactional but "
					+ "the application has no single PlatformTransactionManager",
					"Add org.springframework.boot:spring-boot-starter-jdbc with a DataSource (Boot then creates a "
							+ "DataSourceTransactionManager), or define one PlatformTransactionManager bean.");
		}
		this.interceptor.transactions().requireUsableBy(endpoint.describe());
	}

	private void requireDeclaredLimit(ListenerEndpoint endpoint) {
		String limit = endpoint.limit();
		TaskLimits limits = this.interceptor.limits();
		if (limit != null && (limits == null || !limits.declares(limit))) {
			throw new ExactlyOnceConfigurationException("Listener " + endpoint.describe() + " runs under limit '"
					+ limit + "', which is not declared ("
					+ ((limits == null) ? "no limit is declared under exactlyonce.limits, or durable waits are off"
							: "declared: " + String.join(", ", limits.declared()))
					+ ")",
					"Declare it with exactlyonce.limits." + limit + ".concurrency and/or exactlyonce.limits." + limit
							+ ".rate (with .per), keep exactlyonce.waits.enabled=true, or fix the limit attribute of "
							+ "@ExactlyOnceListener.");
		}
	}

	/**
	 * Lets the listeners' handlers and steps run under limits.
	 * @param limits the limits
	 */
	public void useLimits(TaskLimits limits) {
		this.interceptor.useLimits(limits);
	}

	/**
	 * Lets the listeners' handlers wait durably.
	 * @param waits the durable waits
	 */
	public void useWaits(TaskWaits waits) {
		this.interceptor.useWaits(waits);
	}

	/**
	 * Lets the listeners' handlers start and await child tasks, and tells the parents of children
	 * that complete or are dead-lettered.
	 * @param children the child tasks
	 * @param failures what tells a parent that its child was dead-lettered
	 */
	public void useChildren(TaskChildren children, ChildFailures failures) {
		this.interceptor.useChildren(children);
		this.settler.useChildFailures(failures);
	}

	/**
	 * Lets transactional listeners ({@code @ExactlyOnceListener(transactional = true)}) run their
	 * handler and completion record in one transaction of the application.
	 * @param transactions the application's transactions
	 */
	public void useTransactions(HandlerTransactions transactions) {
		this.interceptor.useTransactions(transactions);
	}

	/**
	 * Registers a listener method and creates its container.
	 * @param listener the listener, with its annotation's namespace or {@code null}
	 * @throws ExactlyOnceConfigurationException when its consumer is not declared or already taken, or
	 * its annotation's namespace differs from the one declared for the consumer
	 */
	public synchronized void register(ListenerEndpoint listener) {
		String consumer = listener.consumer();
		ConsumerSettings settings = this.consumers.get(consumer);
		if (settings == null) {
			throw new ExactlyOnceConfigurationException("Listener " + listener.describe() + " names consumer '"
					+ consumer + "', which is not declared (declared: " + this.consumers.keySet() + ")",
					"Declare it under exactlyonce.consumers." + consumer + " (at least its stream), or fix the "
							+ "consumer attribute of @ExactlyOnceListener.");
		}
		ListenerEndpoint endpoint = listener.inNamespace(settings.namespaceOf(listener));
		if (endpoint.transactional()) {
			requireTransactionalCompletion(endpoint);
		}
		requireDeclaredLimit(endpoint);
		ListenerEndpoint existing = this.endpoints.get(consumer);
		if (existing != null) {
			throw new ExactlyOnceConfigurationException("Listeners " + existing.describe() + " and "
					+ endpoint.describe() + " both listen on consumer '" + consumer + "'",
					"Give each listener its own durable consumer under exactlyonce.consumers.");
		}
		ArgumentResolver arguments = new ArgumentResolver(endpoint.method(), this.jsonMapper);
		DeliveryProcessor processor = new DeliveryProcessor(endpoint, settings, arguments, this.keys, this.settler,
				this.observers, this.failures.with(settings.nonRetryableExceptions()));
		this.endpoints.put(consumer, endpoint);
		this.argumentResolvers.put(consumer, arguments);
		ListenerContainer container = new ListenerContainer(settings, this.connection, processor,
				this.settings.shutdownTimeout(), this.settings.pipelined(), this.settings.threads(),
				this.interceptor::parkIfUnrecorded);
		this.containers.put(consumer, container);
		ExhaustedDeliveries exhausted = new ExhaustedDeliveries(this.connection, settings.stream(), consumer,
				settings.maxDeliver(), new ExhaustedKeyDecisions(endpoint, settings, arguments, this.keys, this.store,
						this.settler, this.requeue, this.owner, this.clock, this.parking),
				this.jsonMapper, this.rawReader, this.exhaustedScheduler);
		this.exhaustedDeliveries.put(consumer, exhausted);
		this.sweeps.put(consumer,
				new UndecodableMessageSweep(this.connection, settings.stream(), consumer, this.rawReader, exhausted));
		this.exhaustedSweeps.put(consumer, new ExhaustedMessageSweep(this.connection, settings.stream(), consumer,
				settings.maxDeliver(), this.rawReader, exhausted));
		if (this.running) {
			exhausted.start();
			container.start();
		}
	}

	/**
	 * The store namespace of the listener on a consumer: what its keys are prefixed with
	 * ({@code <namespace>:<key>}).
	 * @param consumer the consumer
	 * @return the namespace, or empty when no listener listens on the consumer
	 */
	public synchronized Optional<String> namespace(String consumer) {
		return Optional.ofNullable(this.endpoints.get(consumer)).map(ListenerEndpoint::namespace);
	}

	/**
	 * The store key (with namespace) of a message read back from its stream, resolved as the
	 * pipeline resolves it for the listener on the consumer.
	 * @param consumer the consumer
	 * @param stored the message as stored on the stream
	 * @return the key, or empty when no listener listens on the consumer or the message has no key
	 */
	public Optional<String> storeKey(String consumer, RawStreamMessage stored) {
		ListenerEndpoint endpoint;
		ArgumentResolver arguments;
		synchronized (this) {
			endpoint = this.endpoints.get(consumer);
			arguments = this.argumentResolvers.get(consumer);
		}
		if (endpoint == null) {
			return Optional.empty();
		}
		Delivery delivery = new Delivery(stored.toMessage(), stored.sequence(), 0, endpoint,
				this.consumers.get(consumer));
		try {
			delivery.key(this.keys.resolve(delivery, () -> arguments.payloadForKey(delivery, null)));
			return Optional.of(delivery.storeKey());
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	/**
	 * A snapshot of every listener's state.
	 * @return one entry per listener
	 */
	public synchronized List<ListenerState> listeners() {
		List<ListenerState> states = new ArrayList<>();
		this.containers.forEach((consumer, container) -> states.add(new ListenerState(consumer,
				container.settings().stream(), this.endpoints.get(consumer).describe(),
				container.settings().concurrency(), this.settings.pipelined(), container.isRunning(),
				container.inFlight())));
		return states;
	}

	/** The container of a consumer, for tests in this package. */
	synchronized ListenerContainer container(String consumer) {
		return this.containers.get(consumer);
	}

	@Override
	public synchronized void start() {
		this.exhaustedDeliveries.values().forEach(ExhaustedDeliveries::start);
		this.containers.values().forEach(ListenerContainer::start);
		this.exhaustedSweep = this.exhaustedScheduler.scheduleWithFixedDelay(this::sweepExhausted, 0,
				ExhaustedMessageSweep.INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
		this.running = true;
	}

	/**
	 * Stops taking {@code MAX_DELIVERIES} advisories first (so that the server sends the next one to
	 * an instance that is not stopping) and sweeping, then stops the containers in parallel.
	 */
	@Override
	public void stop() {
		List<ListenerContainer> toStop;
		synchronized (this) {
			this.running = false;
			this.exhaustedDeliveries.values().forEach(ExhaustedDeliveries::stopListening);
			if (this.exhaustedSweep != null) {
				this.exhaustedSweep.cancel(false);
			}
			toStop = new ArrayList<>(this.containers.values());
		}
		List<Thread> stopping = toStop.stream()
			.map((container) -> new Thread(container::stop, "exactlyonce-stop-" + container.settings().consumer()))
			.toList();
		stopping.forEach(Thread::start);
		stopping.forEach(ExactlyOnceListenerRegistry::join);
		synchronized (this) {
			this.exhaustedDeliveries.values().forEach(ExhaustedDeliveries::stop);
		}
	}

	/** Dead-letters, on every consumer, the delivered messages whose headers the client cannot decode. */
	@Override
	public void readerRestarted() {
		List<UndecodableMessageSweep> toSweep;
		synchronized (this) {
			toSweep = this.running ? new ArrayList<>(this.sweeps.values()) : List.of();
		}
		toSweep.forEach(UndecodableMessageSweep::sweep);
	}

	/** Sweeps every consumer for messages that ran out of deliveries unsettled; never throws. */
	private void sweepExhausted() {
		List<ExhaustedMessageSweep> toSweep;
		synchronized (this) {
			toSweep = new ArrayList<>(this.exhaustedSweeps.values());
		}
		toSweep.forEach(ExhaustedMessageSweep::sweep);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public boolean isAutoStartup() {
		return this.settings.autoStartup();
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

	@Override
	public void destroy() {
		this.exhaustedScheduler.shutdownNow();
		this.scheduler.shutdownNow();
	}

	private static void join(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The state of one listener.
	 *
	 * @param consumer the durable consumer
	 * @param stream the stream
	 * @param listener the bean method
	 * @param concurrency the number of workers
	 * @param pipelined whether completion records and acks are written off the workers
	 * @param running whether its container is pulling
	 * @param inFlight how many messages it took and has not settled (handled, or pipelined, being recorded)
	 */
	public record ListenerState(String consumer, String stream, String listener, int concurrency, boolean pipelined,
			boolean running, int inFlight) {
	}

}
