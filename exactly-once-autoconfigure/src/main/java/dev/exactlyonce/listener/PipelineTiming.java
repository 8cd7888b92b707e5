package dev.exactlyonce.listener;

/**
 * Timed steps of the pipeline reported to {@link PipelineObserver#onTiming}.
 */
public enum PipelineTiming {

	/** The listener method's own run time, whether it returned or threw. */
	HANDLER,

	/** The round trip of a synchronous ack to the server. */
	ACK

}
