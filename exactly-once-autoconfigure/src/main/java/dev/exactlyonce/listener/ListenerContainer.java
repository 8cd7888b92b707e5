package dev.exactlyonce.listener;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.BooleanSupplier;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import dev.exactlyonce.listener.logging.ContainerLog;

/**
 * Pulls one durable consumer and hands each message to a worker. A pull never asks for more
 * messages than there are free workers, so no message waits in a client buffer while its ack
 * timer runs. Pulls go through one long-lived pull subscription: a message that arrives after a
 * pull ended on the client stays in it and is handed out first on the next pull.
 * <p>
 * Pipelined, a worker hands a handled message's completion record to a completion thread and
 * takes its next message; the completion thread acks once the record is durable. A pull then also
 * needs a free in-flight slot per message (twice concurrency), held from the pull until the
 * message is settled, and there is a completion thread per slot, so a record never waits behind
 * a slow one.
 * <p>
 * Stopping fits in the shutdown timeout: it stops pulling at once (messages already received
 * but not handed to a worker are nak'd), lets in-flight handlers finish for most of the timeout,
 * then interrupts them (each releases its claim and naks its message), and when the timeout is
 * nearly spent releases and naks itself whatever is still in flight, so another instance takes
 * over at once and the next attempt sees a released claim, not an abandoned one.
 * <p>
 * Handlers and completion records run on {@link ListenerThreads}: a fixed pool of platform
 * threads, or a virtual thread per message (the permits above bound how many run). The poller
 * stays a platform thread either way: one per consumer, and the OS schedules it even while
 * handlers keep every carrier of the virtual threads busy, so pulls and shutdown naks go on.
 * Handler threads are named {@code exactlyonce-<consumer>-N}: the number last, so a log pattern
 * that keeps a thread name's last characters (Spring Boot's keeps 15) still tells them apart.
 */
final class ListenerContainer {

	private static final Duration PAUSE_AFTER_ERROR = Duration.ofSeconds(1);

	/** Share of the shutdown timeout handlers get to finish before they are interrupted. */
	private static final double INTERRUPT_AT = 0.8;

	/** Share of the shutdown timeout after which the container settles what is still in flight. */
	private static final double RELEASE_AT = 0.9;

	/**
	 * Share of the shutdown timeout after which completion records still being retried stop (their
	 * completions stay parked on NATS), so that their deliveries settle before the timeout ends.
	 */
	private static final double CLOSE_AT = 0.95;

	private final ConsumerSettings settings;

	private final Connection connection;

	private final DeliveryProcessor processor;

	private final Duration shutdownTimeout;

	private final InFlightPermits permits;

	private final boolean pipelined;

	private final ListenerThreads threads;

	private final Object allSettled = new Object();

	private final Set<Delivery> inFlight = ConcurrentHashMap.newKeySet();

	private volatile boolean running;

	private volatile boolean stopping;

	/** Set once the shutdown timeout ran out: completion records still being retried give up. */
	private volatile boolean closed;

	private volatile long stopDeadline;

	private volatile PullProbe pullProbe = PullProbe.NONE;

	private ExecutorService workers;

	private ExecutorService completions;

	private Thread poller;

	private final Consumer<Delivery> parkUnrecordedCompletion;

	private final ContainerLog log;

	private final UnhandledMessages unhandled;

	ListenerContainer(ConsumerSettings settings, Connection connection, DeliveryProcessor processor,
			Duration shutdownTimeout, boolean pipelined, ListenerThreads threads,
			Consumer<Delivery> parkUnrecordedCompletion) {
		this.settings = settings;
		this.parkUnrecordedCompletion = parkUnrecordedCompletion;
		this.connection = connection;
		this.processor = processor;
		this.shutdownTimeout = shutdownTimeout;
		this.pipelined = pipelined;
		this.threads = threads;
		this.permits = new InFlightPermits(settings.concurrency(), pipelined);
		this.log = new ContainerLog(settings.stream(), settings.consumer(), shutdownTimeout);
		this.unhandled = new UnhandledMessages(connection, this.log);
	}

	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.stopping = false;
		this.closed = false;
		String name = "exactlyonce-" + this.settings.consumer();
		this.workers = this.threads.executor(name + "-", this.settings.concurrency());
		if (this.pipelined) {
			this.completions = this.threads.executor(name + "-completion-", this.permits.slots());
		}
		this.poller = daemon(this::pollLoop, name + "-poller");
		this.poller.start();
		this.log.started(this.settings.concurrency(), this.threads.name().toLowerCase(Locale.ROOT),
				this.pipelined ? this.permits.slots() : 0);
	}

	/**
	 * Stops within the shutdown timeout: stops pulling, waits for handlers (and completion records
	 * being written), interrupts handlers, then releases and naks whatever is still in flight, at 95%
	 * stops retrying completion records (parked on NATS for the next attempt), and flushes so the naks
	 * leave before the connection closes.
	 */
	synchronized void stop() {
		if (!this.running) {
			return;
		}
		long started = System.nanoTime();
		long budget = this.shutdownTimeout.toNanos();
		this.stopDeadline = started + budget;
		this.stopping = true;
		this.running = false;
		this.poller.interrupt();
		this.workers.shutdown();
		parkUnrecordedCompletions();
		if (!awaitSettled(started + (long) (budget * INTERRUPT_AT))) {
			this.log.interrupting(this.inFlight.size());
			this.inFlight.forEach(Delivery::interruptHandler);
			if (!awaitSettled(started + (long) (budget * RELEASE_AT))) {
				releaseStillInFlight();
				if (!awaitSettled(started + (long) (budget * CLOSE_AT))) {
					parkUnrecordedCompletions();
					this.closed = true;
					warnOfRecordsStillBeingWritten();
					awaitSettled(this.stopDeadline);
				}
			}
		}
		this.closed = true;
		if (this.completions != null) {
			this.completions.shutdown();
		}
		joinUntil(this.poller, this.stopDeadline);
		this.unhandled.flushUntil(this.stopDeadline);
	}

	boolean isRunning() {
		return this.running;
	}

	int inFlight() {
		return this.inFlight.size();
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
		return this.permits.freeWorkers();
	}

	/** In-flight slots not held by a pull or an unsettled message. */
	int freeSlots() {
		return this.permits.freeSlots();
	}

	private void pollLoop() {
		JetStreamSubscription subscription = null;
		while (!this.stopping) {
			try {
				if (subscription == null) {
					subscription = this.connection.jetStream()
						.subscribe(null, PullSubscribeOptions.fastBind(this.settings.stream(), this.settings.consumer()));
				}
				pull(subscription);
			}
			catch (InterruptedException ex) {
				break;
			}
			catch (IOException | JetStreamApiException | RuntimeException ex) {
				if (!this.stopping) {
					this.log.failed("pull failed, retrying in " + PAUSE_AFTER_ERROR, ex.getMessage());
					pause();
				}
			}
		}
		if (subscription != null) {
			this.unhandled.returnLeftovers(subscription, this.stopDeadline);
		}
	}

	/**
	 * One pull, sized to the free workers. A message counts as dispatched once handed over; the
	 * permits of the others go back in one place, whatever happens.
	 */
	private void pull(JetStreamSubscription subscription) throws InterruptedException {
		int wanted = this.permits.reserve(this.settings.pullExpiry());
		if (wanted == 0) {
			return;
		}
		int dispatched = 0;
		try {
			Iterator<Message> messages = subscription.iterate(wanted, this.settings.pullExpiry());
			for (int received = 0; received < wanted; received++) {
				this.pullProbe.beforeNext(wanted, received);
				if (!messages.hasNext()) {
					break;
				}
				Message message = messages.next();
				if (this.stopping) {
					this.unhandled.nak(message);
				}
				else {
					dispatched++;
					handOff(message);
				}
			}
		}
		finally {
			this.permits.notDispatched(wanted - dispatched);
		}
	}

	/** Hands a message to a worker; when that fails, gives back its permit and naks it. */
	private void handOff(Message message) {
		Delivery delivery = null;
		try {
			delivery = this.processor.delivery(message, () -> this.stopping, () -> this.closed, this.completions);
			Delivery handed = delivery;
			this.inFlight.add(handed);
			this.workers.execute(() -> work(handed));
		}
		catch (RuntimeException ex) {
			if (delivery != null) {
				this.inFlight.remove(delivery);
			}
			this.permits.notDispatched(1);
			this.log.failed("could not hand a message to a worker, nak'd for redelivery", ex);
			this.unhandled.nak(message);
		}
	}

	/**
	 * Runs a delivery on a worker. The worker is free again once the handler returned; the
	 * delivery's slot once it is settled, which pipelined is later, on a completion thread.
	 */
	private void work(Delivery delivery) {
		CompletableFuture<Void> settled = null;
		try {
			if (this.stopping) {
				if (delivery.takeSettlementForWorker()) {
					this.unhandled.nak(delivery.message());
				}
				return;
			}
			settled = this.processor.process(delivery, () -> this.stopping);
		}
		catch (RuntimeException ex) {
			this.log.unexpected(delivery.describe(), ex);
		}
		finally {
			this.permits.workerFree();
			if (settled == null) {
				settled(delivery);
			}
			else {
				settled.whenComplete((done, ex) -> settled(delivery));
			}
		}
	}

	/** Frees the slot of a delivery that left the pipeline. */
	private void settled(Delivery delivery) {
		this.inFlight.remove(delivery);
		this.permits.slotFree();
		if (this.inFlight.isEmpty()) {
			synchronized (this.allSettled) {
				this.allSettled.notifyAll();
			}
		}
	}

	/**
	 * Releases the claim of, and naks, every delivery whose handler is still running when the
	 * shutdown timeout is nearly spent (a handler that ignores interrupts), so that the next
	 * attempt runs at once and sees a released claim rather than an abandoned one.
	 */
	private void releaseStillInFlight() {
		List<String> released = new ArrayList<>();
		for (Delivery delivery : this.inFlight) {
			try {
				if (Uninterrupted.call(() -> this.processor.releaseForShutdown(delivery))) {
					released.add(Long.toString(delivery.streamSequence()));
				}
			}
			catch (RuntimeException ex) {
				this.log.couldNot("release and nak", delivery.describe(),
						" on shutdown; it returns when its lease and ack wait end", ex);
			}
		}
		if (!released.isEmpty()) {
			this.log.released(released);
		}
	}

	/**
	 * Parks the completions of the handlers that returned and whose records are still being written,
	 * while NATS is still connected: a store that does not answer may keep their writes from failing
	 * (and parking) until after the listener stopped.
	 */
	private void parkUnrecordedCompletions() {
		for (Delivery delivery : this.inFlight) {
			try {
				Uninterrupted.run(() -> this.parkUnrecordedCompletion.accept(delivery));
			}
			catch (RuntimeException ex) {
				this.log.couldNot("park the completion of", delivery.describe(), "", ex);
			}
		}
	}

	/**
	 * Names the messages whose handlers ran but whose completion records were still being written
	 * (store slow or down) at 95% of the shutdown timeout, when their retries stop.
	 */
	private void warnOfRecordsStillBeingWritten() {
		List<String> writing = new ArrayList<>();
		for (Delivery delivery : this.inFlight) {
			if (delivery.pendingSettlement() != null) {
				writing.add(Long.toString(delivery.streamSequence()));
			}
		}
		if (!writing.isEmpty()) {
			this.log.recordsStillWriting(writing);
		}
	}

	/** Waits until the workers ended and every message they took is settled; false at the deadline. */
	private boolean awaitSettled(long deadline) {
		try {
			if (!this.workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
				return false;
			}
			synchronized (this.allSettled) {
				while (!this.inFlight.isEmpty()) {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						return false;
					}
					TimeUnit.NANOSECONDS.timedWait(this.allSettled, left);
				}
			}
			return true;
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

	private static void joinUntil(Thread thread, long deadline) {
		try {
			thread.join(UnhandledMessages.remainingUntil(deadline).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The poller never keeps the JVM alive: a stopped container has settled what it held. */
	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
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
