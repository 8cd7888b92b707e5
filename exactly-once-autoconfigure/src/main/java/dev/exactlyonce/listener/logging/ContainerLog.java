package dev.exactlyonce.listener.logging;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;

/**
 * What a listener container says about its consumer: how it runs, a pull or hand-off that failed,
 * and each stage of a shutdown that did not settle everything in time, with the fix.
 */
public final class ContainerLog {

	private static final Log logger = LogFactory.getLog(ContainerLog.class);

	private static final String SHUTDOWN_TIMEOUT = "exactlyonce.listener.shutdown-timeout";

	private final String prefix;

	private final Duration shutdownTimeout;

	/**
	 * Creates the log of one consumer.
	 * @param stream the consumer's stream
	 * @param consumer the consumer
	 * @param shutdownTimeout the listener's shutdown timeout
	 */
	public ContainerLog(String stream, String consumer, Duration shutdownTimeout) {
		this.prefix = "Consumer '" + consumer + "' on stream '" + stream + "': ";
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Logs how the container runs its consumer.
	 * @param concurrency its workers
	 * @param threads the kind of threads, lower case
	 * @param pipelinedSlots messages in flight when pipelined, 0 when not pipelined
	 */
	public void started(int concurrency, String threads, int pipelinedSlots) {
		logger.info(this.prefix + concurrency + " worker(s) on " + threads + " threads"
				+ ((pipelinedSlots > 0) ? ", pipelined: " + pipelinedSlots + " completion " + threads
						+ " thread(s) write records and ack, up to " + pipelinedSlots + " messages in flight" : ""));
	}

	/**
	 * Warns of a failure the container recovers from.
	 * @param what what failed and what happens now
	 * @param cause the failure's message
	 */
	public void failed(String what, Object cause) {
		logger.warn(this.prefix + what + ": " + cause);
	}

	/**
	 * Warns that an action on one message failed.
	 * @param action what could not be done to it, e.g. "park the completion of"
	 * @param where the message
	 * @param consequence what happens now, appended to the message's place
	 * @param cause the failure
	 */
	public void couldNot(String action, String where, String consequence, Object cause) {
		logger.warn("Could not " + action + " the message at " + where + consequence + ": " + cause);
	}

	/**
	 * Logs an unexpected failure of a worker.
	 * @param where the message
	 * @param failure the failure
	 */
	public void unexpected(String where, Throwable failure) {
		logger.error("Unexpected failure handling the message at " + where
				+ "; it stays unacknowledged and will be redelivered", failure);
	}

	/**
	 * Warns that handlers still run at 80% of the shutdown timeout.
	 * @param inFlight messages still in flight
	 */
	public void interrupting(int inFlight) {
		logger.warn(this.prefix + inFlight + " message(s) still in flight after 80% of " + timeout()
				+ "; interrupting their handlers so their messages go to another instance");
	}

	/**
	 * Warns of the handlers that ignored the interrupt and whose messages were released.
	 * @param sequences their stream sequences
	 */
	public void released(List<String> sequences) {
		logger.warn(this.prefix + "handler(s) of sequence(s) " + sequences + " still running despite the interrupt "
				+ "at 90% of " + timeout() + "; their claims were released and their messages nak'd for another "
				+ "instance. Make handlers honour interrupts, or raise the shutdown timeout together with the pod's "
				+ "termination grace period.");
	}

	/**
	 * Warns of the completion records still being written when their retries stop.
	 * @param sequences the stream sequences of their messages
	 */
	public void recordsStillWriting(List<String> sequences) {
		logger.warn(this.prefix + "the completion records of sequence(s) " + sequences + " were still being "
				+ "written at 95% of " + timeout() + "; their handlers ran. The retries stop now; each completion "
				+ "parked on NATS is recorded by the attempt that takes its key over after its lease, without "
				+ "running the handler again (one that could not be parked returns as an abandoned attempt: "
				+ "on-abandoned decides). Raise the shutdown timeout if the store can be this slow.");
	}

	private String timeout() {
		return SHUTDOWN_TIMEOUT + " (" + DurationText.of(this.shutdownTimeout) + ")";
	}

}
