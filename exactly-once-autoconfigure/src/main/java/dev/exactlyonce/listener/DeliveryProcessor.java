package dev.exactlyonce.listener;

import java.lang.reflect.InvocationTargetException;
import java.util.function.BooleanSupplier;

import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs one message of one listener through the pipeline on a worker thread: resolve arguments
 * and key, bind the delivery, invoke the proxied method (whose advice claims, invokes and records
 * completion), then settle with the server. Settling runs with the thread's interrupt flag cleared.
 */
final class DeliveryProcessor {

	private static final Log logger = LogFactory.getLog(DeliveryProcessor.class);

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

	void process(Message message, BooleanSupplier shuttingDown) {
		Delivery delivery = new Delivery(message, this.endpoint, this.settings, shuttingDown);
		try {
			this.observers.reached(PipelinePoint.RECEIVED, delivery);
			Object[] args;
			try {
				checkSize(delivery);
				Object payload = this.arguments.payload(delivery);
				delivery.key(this.keys.resolve(delivery, () -> this.arguments.payloadForKey(delivery, payload)));
				args = this.arguments.arguments(delivery, payload);
			}
			catch (PoisonMessageException ex) {
				Uninterrupted.run(() -> this.settler.deadLetter(delivery, "poison message: " + ex.getMessage(), ex));
				return;
			}
			Throwable failure = invoke(delivery, args);
			Uninterrupted.run(() -> settle(delivery, failure, shuttingDown.getAsBoolean()));
		}
		catch (PipelineHaltedException ex) {
			logger.warn("Message at " + delivery.describe() + " left unsettled: " + ex.getMessage());
		}
	}

	private void settle(Delivery delivery, Throwable failure, boolean shuttingDown) {
		if (failure != null) {
			this.settler.handlerFailed(delivery, failure, this.failures.isRetryable(failure), shuttingDown);
		}
		else {
			this.settler.settle(delivery);
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
