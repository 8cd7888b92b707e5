package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Pulls one durable consumer and hands each message to a worker. A pull never asks for more
 * messages than there are free workers, so no message waits in a client buffer while its ack
 * timer runs. On stop it stops pulling, lets in-flight handlers finish within the shutdown
 * timeout, then interrupts them (their claims are released and their messages nak'd so another
 * instance takes over at once).
 */
final class ListenerContainer {

	private static final Log logger = LogFactory.getLog(ListenerContainer.class);

	private static final Duration PAUSE_AFTER_ERROR = Duration.ofSeconds(1);

	private final ConsumerSettings settings;

	private final Connection connection;

	private final DeliveryProcessor processor;

	private final Duration shutdownTimeout;

	private final Semaphore freeWorkers;

	private final AtomicInteger inFlight = new AtomicInteger();

	private volatile boolean running;

	private volatile boolean stopping;

	private ExecutorService workers;

	private Thread poller;

	private volatile PullProbe pullProbe = PullProbe.NONE;

	ListenerContainer(ConsumerSettings settings, Connection connection, DeliveryProcessor processor,
			Duration shutdownTimeout) {
		this.settings = settings;
		this.connection = connection;
		this.processor = processor;
		this.shutdownTimeout = shutdownTimeout;
		this.freeWorkers = new Semaphore(settings.concurrency());
	}

	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.stopping = false;
		String name = "exactlyonce-" + this.settings.consumer();
		AtomicInteger workerNumber = new AtomicInteger();
		this.workers = Executors.newFixedThreadPool(this.settings.concurrency(), (task) -> {
			Thread thread = new Thread(task, name + "-worker-" + workerNumber.incrementAndGet());
			thread.setDaemon(false);
			return thread;
		});
		this.poller = new Thread(this::pollLoop, name + "-poller");
		this.poller.setDaemon(true);
		this.poller.start();
	}

	synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.stopping = true;
		this.running = false;
		joinQuietly(this.poller);
		this.workers.shutdown();
		if (!awaitWorkers(this.shutdownTimeout)) {
			logger.warn("Consumer '" + this.settings.consumer() + "': " + this.inFlight.get()
					+ " handler(s) still running after exactlyonce.listener.shutdown-timeout (" + this.shutdownTimeout
					+ "); interrupting them so their messages go to another instance");
			this.workers.shutdownNow();
			awaitWorkers(this.shutdownTimeout);
		}
	}

	boolean isRunning() {
		return this.running;
	}

	int inFlight() {
		return this.inFlight.get();
	}

	ConsumerSettings settings() {
		return this.settings;
	}

	/** Test seam: sees every pull and can fail it half-way. */
	void pullProbe(PullProbe probe) {
		this.pullProbe = probe;
	}

	/** Worker permits not held by a pull or a handler; never above concurrency. */
	int freeWorkers() {
		return this.freeWorkers.availablePermits();
	}

	private void pollLoop() {
		ConsumerContext consumer = null;
		while (this.running) {
			int wanted = 0;
			try {
				wanted = reserveWorkers();
				if (wanted == 0) {
					continue;
				}
				if (consumer == null) {
					consumer = this.connection.getStreamContext(this.settings.stream())
						.getConsumerContext(this.settings.consumer());
				}
				int received = fetch(consumer, wanted);
				this.freeWorkers.release(wanted - received);
			}
			catch (InterruptedException ex) {
				this.freeWorkers.release(wanted);
				Thread.currentThread().interrupt();
				return;
			}
			catch (Exception ex) {
				this.freeWorkers.release(wanted);
				if (this.running) {
					logger.warn("Consumer '" + this.settings.consumer() + "' on stream '" + this.settings.stream()
							+ "': pull failed, retrying in " + PAUSE_AFTER_ERROR + ": " + ex.getMessage());
					pause();
				}
			}
		}
	}

	/** Waits for at least one free worker, then takes every free one; 0 when stopping. */
	private int reserveWorkers() throws InterruptedException {
		if (!this.freeWorkers.tryAcquire(this.settings.pullExpiry().toMillis(), TimeUnit.MILLISECONDS)) {
			return 0;
		}
		return 1 + this.freeWorkers.drainPermits();
	}

	private int fetch(ConsumerContext consumer, int wanted) throws Exception {
		FetchConsumeOptions options = FetchConsumeOptions.builder()
			.maxMessages(wanted)
			.expiresIn(this.settings.pullExpiry().toMillis())
			.build();
		int received = 0;
		try (FetchConsumer fetch = consumer.fetch(options)) {
			this.pullProbe.beforeNext(wanted, received);
			Message message = fetch.nextMessage();
			while (message != null) {
				received++;
				dispatch(message);
				if (received < wanted) {
					this.pullProbe.beforeNext(wanted, received);
				}
				message = (received < wanted) ? fetch.nextMessage() : null;
			}
		}
		return received;
	}

	private void dispatch(Message message) {
		if (this.stopping) {
			message.nak();
			this.freeWorkers.release();
			return;
		}
		this.inFlight.incrementAndGet();
		this.workers.execute(() -> {
			try {
				this.processor.process(message, () -> this.stopping);
			}
			catch (RuntimeException ex) {
				logger.error("Unexpected failure handling a message of consumer '" + this.settings.consumer()
						+ "'; it stays unacknowledged and will be redelivered", ex);
			}
			finally {
				this.inFlight.decrementAndGet();
				this.freeWorkers.release();
			}
		});
	}

	private boolean awaitWorkers(Duration timeout) {
		try {
			return this.workers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private void pause() {
		try {
			Thread.sleep(PAUSE_AFTER_ERROR.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void joinQuietly(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Test seam around pulls: called before each request for the next message of a pull, as a
	 * failing client call would be. Throwing from it fails the pull there.
	 */
	interface PullProbe {

		/** Observes nothing. */
		PullProbe NONE = (wanted, received) -> {
		};

		/**
		 * Called before the next message of a pull is requested.
		 * @param wanted the pull's size
		 * @param received how many of its messages were received so far
		 */
		void beforeNext(int wanted, int received);

	}

}
