package dev.exactlyonce.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.nats.client.Message;
import io.nats.client.impl.Headers;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.children.spi.ChildSession;
import dev.exactlyonce.limits.spi.LimitSession;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * One delivery travelling through the pipeline: the message, its key, and what the exactly-once
 * advice did with it. Created by the container, filled in by the advice, read back by the
 * container to settle the message.
 */
final class Delivery implements ExactlyOnceContext {

	private final Message message;

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final long streamSequence;

	private final long deliveryCount;

	private final BooleanSupplier stopping;

	private final BooleanSupplier closed;

	private final Executor completions;

	/** When the delivery entered the pipeline ({@link System#nanoTime()}). */
	private final long receivedNanos = System.nanoTime();

	private String key;

	private boolean entered;

	private volatile Claim claim;

	private volatile PreviousAttempt previousAttempt;

	private volatile long leaseStartedNanos;

	private volatile Settlement settlement;

	private volatile CompletableFuture<Settlement> pendingSettlement;

	private volatile Thread handlerThread;

	/** Guards {@link #handlerThread} against the interrupt, and the two fields below. */
	private final Object interruptLock = new Object();

	/** How deep the handler's thread is in the pipeline's own calls (a step's journal write). */
	private int pipelineCalls;

	/** Whether the container interrupted the handler while it was in such a call. */
	private boolean interruptDeferred;

	private volatile StepSession steps;

	private volatile WaitSession waits;

	private volatile ChildSession children;

	private volatile LimitSession limits;

	private volatile String limitKey = "";

	private volatile Completion unrecordedCompletion;

	private final AtomicBoolean completionParked = new AtomicBoolean();

	private final AtomicReference<Party> settledBy = new AtomicReference<>();

	/**
	 * A delivery pulled by a container that is stopping when {@code stopping} says so, whose
	 * completion record is written on {@code completions} ({@code null}: on the handler's thread).
	 */
	Delivery(Message message, ListenerEndpoint endpoint, ConsumerSettings settings, BooleanSupplier stopping,
			BooleanSupplier closed, Executor completions) {
		this(message, message.metaData().streamSequence(), message.metaData().deliveredCount(), endpoint, settings,
				stopping, closed, completions);
	}

	/** A delivery known only by its stream sequence and delivery count (read back from the stream). */
	Delivery(Message message, long streamSequence, long deliveryCount, ListenerEndpoint endpoint,
			ConsumerSettings settings) {
		this(message, streamSequence, deliveryCount, endpoint, settings, () -> false, () -> false, null);
	}

	private Delivery(Message message, long streamSequence, long deliveryCount, ListenerEndpoint endpoint,
			ConsumerSettings settings, BooleanSupplier stopping, BooleanSupplier closed, Executor completions) {
		this.message = message;
		this.streamSequence = streamSequence;
		this.deliveryCount = deliveryCount;
		this.endpoint = endpoint;
		this.settings = settings;
		this.stopping = stopping;
		this.closed = closed;
		this.completions = completions;
	}

	Message message() {
		return this.message;
	}

	/** How long since the delivery entered the pipeline. */
	Duration held() {
		return Duration.ofNanos(System.nanoTime() - this.receivedNanos);
	}

	ListenerEndpoint endpoint() {
		return this.endpoint;
	}

	ConsumerSettings settings() {
		return this.settings;
	}

	/** Marks the listener method as running on the current thread, until {@link #handlerReturned()}. */
	void handlerRunning() {
		this.handlerThread = Thread.currentThread();
	}

	/** Marks the listener method as returned: no interrupt reaches its thread from now on. */
	void handlerReturned() {
		synchronized (this.interruptLock) {
			this.handlerThread = null;
			this.interruptDeferred = false;
		}
	}

	/**
	 * Interrupts the listener method if it is running: a stopping container interrupts handlers,
	 * never the pipeline's own store and NATS calls (an applied claim whose answer was cut off would
	 * look abandoned). While the handler's thread is in such a call (a durable step's journal write),
	 * the interrupt waits until the call returns: on a virtual thread an interrupt closes the socket of
	 * a blocking read or write, which would lose a step's {@code DONE} entry after its side effect.
	 */
	void interruptHandler() {
		synchronized (this.interruptLock) {
			Thread thread = this.handlerThread;
			if (thread == null) {
				return;
			}
			if (this.pipelineCalls > 0) {
				this.interruptDeferred = true;
			}
			else {
				thread.interrupt();
			}
		}
	}

	/**
	 * Enters one of the pipeline's own calls on the current thread: when it is the handler's, the
	 * container's interrupt waits until {@link #leavePipelineCall()}.
	 * @return whether the call is guarded (to be left with {@link #leavePipelineCall()})
	 */
	boolean enterPipelineCall() {
		synchronized (this.interruptLock) {
			if (this.handlerThread != Thread.currentThread()) {
				return false;
			}
			this.pipelineCalls++;
			return true;
		}
	}

	/** Leaves a guarded pipeline call, delivering an interrupt that waited for it. */
	void leavePipelineCall() {
		synchronized (this.interruptLock) {
			this.pipelineCalls--;
			if (this.pipelineCalls == 0 && this.interruptDeferred) {
				this.interruptDeferred = false;
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Whether the container that pulled this delivery has stopped: its shutdown timeout ran out. */
	boolean closed() {
		return this.closed.getAsBoolean();
	}

	/** Whether the container that pulled this delivery is stopping. */
	boolean stopping() {
		return this.stopping.getAsBoolean();
	}

	void key(String resolvedKey) {
		this.key = resolvedKey;
	}

	/** The key as stored: the listener's namespace, a colon, the key. */
	String storeKey() {
		return this.endpoint.namespace() + ":" + this.key;
	}

	/** Marks the advice as entered; false when it already was (a nested call). */
	boolean enter() {
		if (this.entered) {
			return false;
		}
		this.entered = true;
		return true;
	}

	void claimed(Claim acquired, PreviousAttempt previous) {
		this.claim = acquired;
		this.previousAttempt = previous;
	}

	/** Opens the durable steps of this delivery, once its claim is held and its heartbeat runs. */
	/** Marks the completion whose record is being written (the handler returned), until it is recorded. */
	void completionUnrecorded(Completion completion) {
		this.unrecordedCompletion = completion;
	}

	/** The completion whose record is still being written, or {@code null}. */
	Completion unrecordedCompletion() {
		return this.unrecordedCompletion;
	}

	/** Marks the completion as parked. */
	void markCompletionParked() {
		this.completionParked.set(true);
	}

	/** Whether the completion was parked. */
	boolean completionParked() {
		return this.completionParked.get();
	}

	void stepsOpened(StepSession session) {
		this.steps = session;
	}

	void waitsOpened(WaitSession session) {
		this.waits = session;
	}

	void childrenOpened(ChildSession session) {
		this.children = session;
	}

	void limitsOpened(LimitSession session) {
		this.limits = session;
	}

	void limitKey(String resolvedLimitKey) {
		this.limitKey = resolvedLimitKey;
	}

	/**
	 * Takes a slot of the listener's limit, if it has one.
	 * @throws WaitSuspension when the limit is reached
	 */
	void enterListenerLimit() {
		LimitSession session = this.limits;
		if (session != null && this.endpoint.limit() != null) {
			Uninterrupted.run(() -> session.enter(this.endpoint.limit(), this.limitKey));
		}
	}

	/** Gives back every slot the delivery still holds; never throws. */
	void closeLimits() {
		LimitSession session = this.limits;
		if (session != null) {
			Uninterrupted.run(session::close);
		}
	}

	void renewed(Claim renewed, long sentNanos) {
		this.claim = renewed;
		leaseStarted(sentNanos);
	}

	/**
	 * Notes that the store started (or extended) the claim's lease no earlier than
	 * {@code sentNanos}, when the request that did it was sent ({@link System#nanoTime()}).
	 */
	void leaseStarted(long sentNanos) {
		this.leaseStartedNanos = sentNanos;
	}

	/**
	 * How much of the claim's lease is surely left, on this instance's monotonic clock (counted from
	 * when the last claim or renewal answered was sent, so a skewed wall clock never matters).
	 */
	Duration leaseLeft() {
		Duration left = this.settings.lease().minusNanos(System.nanoTime() - this.leaseStartedNanos);
		return left.isNegative() ? Duration.ZERO : left;
	}

	Claim claim() {
		return this.claim;
	}

	void settle(Settlement decided) {
		this.settlement = decided;
	}

	Settlement settlement() {
		return this.settlement;
	}

	/**
	 * Where the completion record is written when it is written off the handler's thread.
	 * @return the executor, or {@code null} when the handler's thread writes it
	 */
	Executor completions() {
		return this.completions;
	}

	/** Decides the settlement once {@code pending} completes (a completion record being written). */
	void settleLater(CompletableFuture<Settlement> pending) {
		this.pendingSettlement = pending;
	}

	/**
	 * The settlement still being decided off the handler's thread.
	 * @return it, or {@code null} when the settlement was decided on the handler's thread
	 */
	CompletableFuture<Settlement> pendingSettlement() {
		return this.pendingSettlement;
	}

	/**
	 * Takes the right to settle this delivery for its worker: true unless the stopping container
	 * took it first; true again on later calls by the worker (its advice takes it as soon as the
	 * handler returns, before writing the completion, so a finished handler is never released).
	 */
	boolean takeSettlementForWorker() {
		return this.settledBy.compareAndExchange(null, Party.WORKER) != Party.CONTAINER;
	}

	/**
	 * Takes the right to settle this delivery for the stopping container, when its handler outlives
	 * the shutdown timeout: false once its worker took it.
	 */
	boolean takeSettlementForContainer() {
		return this.settledBy.compareAndSet(null, Party.CONTAINER);
	}

	/** Who settles a delivery with the server. */
	private enum Party {

		WORKER, CONTAINER

	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String stream() {
		return this.settings.stream();
	}

	@Override
	public String consumer() {
		return this.settings.consumer();
	}

	@Override
	public long streamSequence() {
		return this.streamSequence;
	}

	@Override
	public long deliveryCount() {
		return this.deliveryCount;
	}

	@Override
	public String subject() {
		return this.message.getSubject();
	}

	@Override
	public Headers headers() {
		Headers headers = this.message.getHeaders();
		return (headers != null) ? headers : new Headers();
	}

	@Override
	public String fencingToken() {
		return (this.claim != null) ? this.claim.token() : null;
	}

	@Override
	public Optional<PreviousAttempt> previousAttempt() {
		return Optional.ofNullable(this.previousAttempt);
	}

	@Override
	public <T> T step(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe) {
		StepSession session = this.steps;
		return (session != null) ? session.run(name, type, action, probe)
				: ExactlyOnceContext.super.step(name, type, action, probe);
	}

	@Override
	public <T> T step(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe,
			StepOptions options) {
		StepSession session = this.steps;
		if (session == null || options == null || options.limit() == null || session.finished(name)) {
			return step(name, type, action, probe);
		}
		LimitSession limited = this.limits;
		if (limited == null) {
			throw new UnsupportedOperationException("Step '" + name + "' of listener " + this.endpoint.describe()
					+ " runs under limit '" + options.limit() + "', but limits are off (none is declared under "
					+ "exactlyonce.limits, or exactlyonce.waits.enabled=false): see docs/limits.md");
		}
		Uninterrupted.run(() -> limited.enter(options.limit(), options.limitKey()));
		try {
			return session.run(name, type, action, probe);
		}
		finally {
			Uninterrupted.run(() -> limited.leave(options.limit(), options.limitKey()));
		}
	}

	@Override
	public PublishResult publish(String step, String subject, Object payload) {
		StepSession session = this.steps;
		return (session != null) ? session.publish(step, subject, payload)
				: ExactlyOnceContext.super.publish(step, subject, payload);
	}

	@Override
	public void sleep(String name, Duration duration) {
		waits(name).sleep(name, duration);
	}

	@Override
	public void sleepUntil(String name, Instant at) {
		waits(name).sleepUntil(name, at);
	}

	@Override
	public <T> Optional<T> awaitSignal(String name, ParameterizedTypeReference<T> type, Duration timeout) {
		return waits(name).awaitSignal(name, type, timeout);
	}

	@Override
	public ChildTask startChild(String name, String subject, Object payload, String key, Map<String, String> headers) {
		ChildSession session = children(name);
		return step(name, ChildTask.class, () -> session.publish(name, subject, payload, key, headers));
	}

	@Override
	public <T> T awaitChild(ChildTask child, ParameterizedTypeReference<T> resultType, Duration timeout) {
		return children(child.name()).awaitChild(child, resultType, timeout);
	}

	@Override
	public <T> List<ChildResult<T>> awaitAll(String name, Collection<ChildTask> children,
			ParameterizedTypeReference<T> resultType, Duration timeout) {
		return children(name).awaitAll(name, children, resultType, timeout);
	}

	private ChildSession children(String name) {
		ChildSession session = this.children;
		if (session == null) {
			waits(name);
			throw new UnsupportedOperationException("Child task '" + name + "' of listener " + this.endpoint.describe()
					+ " needs an ExactlyOncePublisher bean: see docs/children.md");
		}
		return session;
	}

	/** The suspension a durable wait of this delivery threw, even if its handler swallowed it, or {@code null}. */
	WaitSuspension thrownSuspension() {
		WaitSession session = this.waits;
		WaitSuspension thrown = (session != null) ? session.thrown() : null;
		LimitSession limited = this.limits;
		return (thrown == null && limited != null) ? limited.thrown() : thrown;
	}

	private WaitSession waits(String name) {
		WaitSession session = this.waits;
		if (session == null) {
			throw new UnsupportedOperationException("Wait '" + name + "' of listener " + this.endpoint.describe()
					+ " needs durable waits, which are off (exactlyonce.waits.enabled=false) or have no NATS "
					+ "JetStream to keep them: see docs/waits.md");
		}
		return session;
	}

	/** Where the message is, for log lines: never the payload. */
	String describe() {
		return "stream '" + stream() + "', consumer '" + consumer() + "', sequence " + streamSequence()
				+ ", delivery " + deliveryCount();
	}

}
