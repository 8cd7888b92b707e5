package dev.exactlyonce.listener;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.nats.client.Connection;
import io.nats.client.api.MessageInfo;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.autoconfigure.ExactlyOnceConfigurationException;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Owns one {@link ListenerContainer} per {@link dev.exactlyonce.annotation.ExactlyOnceListener}
 * method and starts and stops them with the application context. It runs in the last phase, so
 * containers start after every other bean and stop before the NATS connection closes.
 */
public class ExactlyOnceListenerRegistry implements SmartLifecycle, DisposableBean {

	private final Connection connection;

	private final Map<String, ConsumerSettings> consumers;

	private final JsonMapper jsonMapper;

	private final ExactlyOnceProperties.Listener properties;

	private final ScheduledExecutorService scheduler;

	private final PipelineObservers observers;

	private final DeliverySettler settler;

	private final ExactlyOnceInterceptor interceptor;

	private final FailureClassifier failures;

	private final KeyResolver keys = new KeyResolver();

	private final IdempotencyStore store;

	private final String owner;

	private final Clock clock;

	private final Map<String, ExhaustedDeliveries> exhaustedDeliveries = new LinkedHashMap<>();

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
	 * @param observers the pipeline observers, in order
	 * @param properties all exactly-once properties
	 * @param owner this instance's name in claims
	 * @param clock the clock
	 */
	public ExactlyOnceListenerRegistry(Connection connection, IdempotencyStore store,
			Map<String, ConsumerSettings> consumers, JsonMapper jsonMapper, DeadLetterPublisher deadLetters,
			List<PipelineObserver> observers, ExactlyOnceProperties properties, String owner, Clock clock) {
		this.connection = connection;
		this.store = store;
		this.owner = owner;
		this.clock = clock;
		this.consumers = Map.copyOf(consumers);
		this.jsonMapper = jsonMapper;
		this.properties = properties.getListener();
		int workers = consumers.values().stream().mapToInt(ConsumerSettings::concurrency).sum();
		this.scheduler = Executors.newScheduledThreadPool(Math.max(2, workers),
				daemonThreads("exactlyonce-working-acks-"));
		this.observers = new PipelineObservers(observers);
		this.failures = new FailureClassifier(this.properties.getNonRetryableExceptions());
		this.settler = new DeliverySettler(store, deadLetters, this.observers, this.properties.getAckTimeout(),
				this.properties.getAckMode() == ExactlyOnceProperties.AckMode.SYNC, clock);
		this.interceptor = new ExactlyOnceInterceptor(store, new WorkingAcks(this.scheduler, store, this.observers),
				new CompletionWriter(store, this.properties.getCompletionRetryTimeout(),
						properties.getStore().getResultSummaryMaxLength()),
				this.observers, owner);
	}

	/**
	 * The exactly-once advice applied to listener beans.
	 * @return the interceptor
	 */
	public MethodInterceptor interceptor() {
		return this.interceptor;
	}

	/**
	 * Registers a listener method and creates its container.
	 * @param endpoint the listener
	 * @throws ExactlyOnceConfigurationException when its consumer is not declared or already taken
	 */
	public synchronized void register(ListenerEndpoint endpoint) {
		String consumer = endpoint.consumer();
		ConsumerSettings settings = this.consumers.get(consumer);
		if (settings == null) {
			throw new ExactlyOnceConfigurationException("Listener " + endpoint.describe() + " names consumer '"
					+ consumer + "', which is not declared (declared: " + this.consumers.keySet() + ")",
					"Declare it under exactlyonce.consumers." + consumer + " (at least its stream), or fix the "
							+ "consumer attribute of @ExactlyOnceListener.");
		}
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
				this.properties.getShutdownTimeout());
		this.containers.put(consumer, container);
		ExhaustedDeliveries exhausted = new ExhaustedDeliveries(this.connection, endpoint, settings, arguments,
				this.keys, this.store, this.settler, this.jsonMapper, this.owner, this.scheduler, this.clock);
		this.exhaustedDeliveries.put(consumer, exhausted);
		if (this.running) {
			exhausted.start();
			container.start();
		}
	}

	/**
	 * The store key (with namespace) of a message read back from its stream, resolved as the
	 * pipeline resolves it for the listener on the consumer.
	 * @param consumer the consumer
	 * @param stored the message as stored on the stream
	 * @return the key, or empty when no listener listens on the consumer or the message has no key
	 */
	public Optional<String> storeKey(String consumer, MessageInfo stored) {
		ListenerEndpoint endpoint;
		ArgumentResolver arguments;
		synchronized (this) {
			endpoint = this.endpoints.get(consumer);
			arguments = this.argumentResolvers.get(consumer);
		}
		if (endpoint == null) {
			return Optional.empty();
		}
		Delivery delivery = Delivery.readBack(stored, 0, endpoint, this.consumers.get(consumer));
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
				container.settings().concurrency(), container.isRunning(), container.inFlight())));
		return states;
	}

	@Override
	public synchronized void start() {
		this.exhaustedDeliveries.values().forEach(ExhaustedDeliveries::start);
		this.containers.values().forEach(ListenerContainer::start);
		this.running = true;
	}

	@Override
	public void stop() {
		List<ListenerContainer> toStop;
		synchronized (this) {
			this.running = false;
			toStop = new ArrayList<>(this.containers.values());
		}
		CompletableFuture.allOf(toStop.stream()
			.map((container) -> CompletableFuture.runAsync(container::stop))
			.toArray(CompletableFuture[]::new)).join();
		synchronized (this) {
			this.exhaustedDeliveries.values().forEach(ExhaustedDeliveries::stop);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

	@Override
	public void destroy() {
		this.scheduler.shutdownNow();
	}

	private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
		AtomicInteger number = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * The state of one listener.
	 *
	 * @param consumer the durable consumer
	 * @param stream the stream
	 * @param listener the bean method
	 * @param concurrency the number of workers
	 * @param running whether its container is pulling
	 * @param inFlight how many messages its handlers are working on now
	 */
	public record ListenerState(String consumer, String stream, String listener, int concurrency, boolean running,
			int inFlight) {
	}

}
