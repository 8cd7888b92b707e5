package dev.exactlyonce.listener;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs one message of one listener through the pipeline on a worker thread: resolve the key (from
 * its header before the payload is read, so even a poison body is dead-lettered with its key) and
 * arguments, bind the delivery, invoke the proxied method (whose advice claims, invokes and records
 * completion), then settle with the server. Settling runs with the thread's interrupt flag cleared.
 */
final class DeliveryProcessor {

	private static final Log logger = LogFactory.getLog(DeliveryProcessor.class);

	private static final CompletableFuture<Void> SETTLED = CompletableFuture.completedFuture(null);

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final ArgumentResolver arguments;

	private final KeyResolver keys;

	private final DeliverySettler settler;

	private final PipelineObservers observers;

	private final FailureClassifier failures;

	DeliveryProcessor(ListenerEndpoint endpoint, ConsumerSettings settings, ArgumentResolver arguments,
			KeyResolver keys, DeliverySettler settler, PipelineObservers observers, FailureClassifier failures) {
		this.endpoint = endpoint;
		this.settings = settings;
		this.arguments = arguments;
		this.keys = keys;
		this.settler = settler;
		this.observers = observers;
		this.failures = failures;
	}

	/**
	 * The delivery of a message received for this listener.
	 * @param message the message
	 * @param stopping whether the container that pulled it is stopping
	 * @param completions where its completion record is written, or {@code null} for the worker's thread
	 * @return its delivery
	 * @throws RuntimeException when the message carries no JetStream metadata
	 */
	Delivery delivery(Message message, BooleanSupplier stopping, BooleanSupplier closed, Executor completions) {
		return new Delivery(message, this.endpoint, this.settings, stopping, closed, completions);
	}

	/**
	 * Runs a delivery through the pipeline and settles it, unless the stopping container has
	 * settled it meanwhile. Settling runs with the thread's interrupt flag cleared. When the
	 * completion record is written off the worker's thread, settling follows on the thread that
	 * wrote it.
	 * @return done once the delivery is settled (or left unsettled on purpose); never failed
	 */
	CompletableFuture<Void> process(Delivery delivery, BooleanSupplier shuttingDown) {
		try {
			this.observers.reached(PipelinePoint.RECEIVED, delivery);
			Runnable settlement = handle(delivery, shuttingDown);
			CompletableFuture<Settlement> pending = delivery.pendingSettlement();
			if (pending == null) {
				settleUnlessReleased(delivery, settlement);
				return SETTLED;
			}
			// the record being written decides, even when something around the advice threw after it
			return pending.thenAccept((decided) -> {
				delivery.settle(decided);
				Uninterrupted.run(() -> this.settler.settle(delivery));
			}).exceptionally((ex) -> {
				leftUnsettled(delivery, ex);
				return null;
			});
		}
		catch (PipelineHaltedException ex) {
			leftUnsettled(delivery, ex);
			CompletableFuture<Settlement> pending = delivery.pendingSettlement();
			// a record handed off before the halt is still being written: the delivery leaves when it ends
			return (pending != null) ? pending.handle((settlement, failure) -> null) : SETTLED;
		}
	}

	/** Settles a delivery as decided on its worker, unless the stopping container released it first. */
	private void settleUnlessReleased(Delivery delivery, Runnable settlement) {
		if (delivery.takeSettlementForWorker()) {
			Uninterrupted.run(settlement);
		}
		else {
			logger.warn("Handler of the message at " + delivery.describe() + " returned after shutdown had "
					+ "released its claim and nak'd it; its outcome is ignored");
		}
	}

	private void leftUnsettled(Delivery delivery, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (cause instanceof PipelineHaltedException) {
			logger.warn("Message at " + delivery.describe() + " left unsettled: " + cause.getMessage());
			this.observers.halted(delivery);
		}
		else {
			logger.error("Unexpected failure settling the message at " + delivery.describe()
					+ "; it stays unacknowledged and will be redelivered", cause);
		}
	}

	/**
	 * Releases the claim of a delivery whose handler is still running at the end of a shutdown
	 * and naks it, so another instance runs it at once as a released (not abandoned) attempt.
	 * @return {@code false} when the delivery was already being settled by its worker
	 */
	boolean releaseForShutdown(Delivery delivery) {
		if (!delivery.takeSettlementForContainer()) {
			return false;
		}
		this.settler.handlerFailed(delivery,
				new CancellationException("handler still running when the shutdown timeout ran out"), true, true);
		return true;
	}

	/** Resolves, invokes and decides how to settle; the settlement runs only if nobody else settled. */
	private Runnable handle(Delivery delivery, BooleanSupplier shuttingDown) {
		Object[] args;
		try {
			PayloadOnce payload = new PayloadOnce(delivery);
			delivery.key(this.keys.resolve(delivery, () -> this.arguments.payloadForKey(delivery, payload.get())));
			delivery.limitKey(this.keys.limitKey(delivery, () -> this.arguments.payloadForKey(delivery, payload.get())));
			args = this.arguments.arguments(delivery, payload.get());
		}
		catch (PoisonMessageException ex) {
			return () -> this.settler.deadLetterUnclaimed(delivery, "poison message: " + ex.getMessage(), ex);
		}
		Throwable failure = invoke(delivery, args);
		if (failure != null) {
			boolean retryable = this.failures.isRetryable(failure);
			boolean stopping = shuttingDown.getAsBoolean();
			return () -> this.settler.handlerFailed(delivery, failure, retryable, stopping);
		}
		return () -> this.settler.settle(delivery);
	}

	/**
	 * A delivery's payload, read once and only when first asked for, after its size was checked: the
	 * key is resolved before it (a listener keyed by its message id gets a key even for a body that is
	 * too large or not readable, so its dead letter can be replayed by key).
	 */
	private final class PayloadOnce implements Supplier<Object> {

		private final Delivery delivery;

		private boolean read;

		private Object value;

		PayloadOnce(Delivery delivery) {
			this.delivery = delivery;
		}

		@Override
		public Object get() {
			if (!this.read) {
				checkSize(this.delivery);
				this.value = DeliveryProcessor.this.arguments.payload(this.delivery);
				this.read = true;
			}
			return this.value;
		}

	}

	private void checkSize(Delivery delivery) {
		int size = (delivery.message().getData() != null) ? delivery.message().getData().length : 0;
		if (size > this.settings.maxPayloadBytes()) {
			throw new PoisonMessageException("Payload of the message at " + delivery.describe() + " has " + size
					+ " bytes, above the limit of " + this.settings.maxPayloadBytes(),
					"Raise exactlyonce.consumers." + this.settings.consumer() + ".max-payload-size or make the "
							+ "publisher send a reference instead of the data",
					null);
		}
	}

	/** Invokes the listener; returns the handler's failure, or {@code null} when it returned. */
	private Throwable invoke(Delivery delivery, Object[] args) {
		DeliveryBinding.bind(delivery);
		try {
			this.endpoint.method().invoke(this.endpoint.bean(), args);
			return null;
		}
		catch (InvocationTargetException ex) {
			if (ex.getTargetException() instanceof PipelineHaltedException halted) {
				throw halted;
			}
			return ex.getTargetException();
		}
		catch (IllegalAccessException ex) {
			return ex;
		}
		finally {
			DeliveryBinding.unbind();
		}
	}

}
