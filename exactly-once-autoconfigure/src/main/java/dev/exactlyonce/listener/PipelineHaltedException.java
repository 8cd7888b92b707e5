package dev.exactlyonce.listener;

/**
 * Thrown when a {@link PipelineObserver} fails: the delivery is left exactly as a crash at that
 * point would leave it (no ack, no nak, no release), so the server redelivers it after the ack
 * wait.
 */
class PipelineHaltedException extends RuntimeException {

	PipelineHaltedException(PipelinePoint point, RuntimeException cause) {
		super("Pipeline halted at " + point + " by an observer", cause);
	}

}
