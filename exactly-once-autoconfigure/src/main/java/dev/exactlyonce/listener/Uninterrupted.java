package dev.exactlyonce.listener;

import java.util.function.Supplier;

/**
 * Runs the pipeline's own store and NATS calls with the thread's interrupt flag cleared, then
 * restores it. A handler stopped by shutdown rightly leaves its thread interrupted, but on such a
 * thread jnats fails KV requests at once and silently skips acks and naks, so the claim would stay
 * held and the message would wait out its ack wait. On a handler's thread (a durable step), a
 * shutdown's interrupt that comes during the call waits until it returns (see
 * {@link Delivery#interruptHandler()}).
 */
final class Uninterrupted {

	private Uninterrupted() {
	}

	static <T> T call(Supplier<T> call) {
		Delivery delivery = DeliveryBinding.current();
		boolean guarded = delivery != null && delivery.enterPipelineCall();
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (guarded) {
				delivery.leavePipelineCall();
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	static void run(Runnable action) {
		call(() -> {
			action.run();
			return null;
		});
	}

}
