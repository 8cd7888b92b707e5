package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Writes the completion record of a handled delivery. While the store is unreachable it retries
 * with exponential backoff ({@link StoreWriteRetry}; the heartbeat keeps the message and the claim
 * alive meanwhile) until the record is written, the claim is lost, or the listener has stopped: a
 * handler that finished is never run again because its record was late while this process lives.
 * Past {@code completion-retry-timeout} an ERROR says so, once, and the retries go on. At the first
 * failure the completion is also parked ({@link CompletionParking}, retried at each failure until it
 * is), so that an attempt that takes the key over after this process stopped or died records it
 * instead of running the handler again; once the record lands the parked copy is removed. A write
 * whose answer was lost is recognised by the store itself (read back by fencing token). It runs
 * with the thread's interrupt flag cleared (see {@link Uninterrupted}); an interrupt that arrives
 * while it waits between retries ends the retries.
 */
final class CompletionWriter {

	private static final Log logger = LogFactory.getLog(CompletionWriter.class);

	private final IdempotencyStore store;

	private final Duration retryTimeout;

	private final int summaryMaxLength;

	private final CompletionParking parking;

	CompletionWriter(IdempotencyStore store, Duration retryTimeout, int summaryMaxLength, CompletionParking parking) {
		this.store = store;
		this.retryTimeout = retryTimeout;
		this.summaryMaxLength = summaryMaxLength;
		this.parking = parking;
	}

	Settlement write(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Object result) {
		return writeCompletion(delivery, heartbeat, completionOf(delivery, result));
	}

	/**
	 * Records the completion that the attempt this delivery's claim took over had parked, under this
	 * claim, as {@link #write} does, after parking it again under this claim's token (a crash before
	 * the record lands leaves it to the next attempt); the parked copy is removed once the record landed.
	 * @return {@link Settlement.CompletionRecovered} once written, else what {@link #write} returns
	 */
	Settlement writeRecovered(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Completion parked) {
		parkUnlessParked(delivery, parked);
		Settlement settlement = writeCompletion(delivery, heartbeat, parked);
		return (settlement instanceof Settlement.Processed)
				? new Settlement.CompletionRecovered(delivery.streamSequence() != parked.streamSequence()) : settlement;
	}

	private Settlement writeCompletion(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Completion completion) {
		long lateAt = System.nanoTime() + this.retryTimeout.toNanos();
		boolean[] saidLate = new boolean[1];
		delivery.completionUnrecorded(completion);
		try {
			StoreWriteRetry.writeUntil(() -> heartbeat.exclusive(() -> {
				IdempotencyRecord written = complete(delivery, completion);
				heartbeat.recorded();
				return written;
			}),
					delivery::closed, (ex, wait) -> {
						parkUnlessParked(delivery, completion);
						if (!saidLate[0] && System.nanoTime() > lateAt) {
							saidLate[0] = true;
							logger.error("Completion record for the message at " + delivery.describe() + " still not "
									+ "written after exactlyonce.listener.completion-retry-timeout (" + this.retryTimeout
									+ "); its handler ran. The message and claim are held and the write is retried "
									+ "until the store answers: " + ex.getMessage());
						}
						else {
							logger.warn("Completion record for the message at " + delivery.describe()
									+ " not written, retrying in " + wait + ": " + ex.getMessage());
						}
					});
			delivery.completionUnrecorded(null);
			if (delivery.completionParked()) {
				this.parking.remove(delivery.storeKey());
			}
			return new Settlement.Processed();
		}
		catch (ClaimLostException ex) {
			return (delivery.completionParked() && recordedByTheNextAttempt(delivery, completion))
					? new Settlement.Duplicate() : new Settlement.ClaimLost();
		}
		catch (StoreUnavailableException ex) {
			return parkUnlessParked(delivery, completion) ? new Settlement.CompletionParked(ex)
					: new Settlement.CompletionUnrecorded(ex);
		}
	}

	/**
	 * The completion record's write: any failure but a lost claim counts as the store not answering
	 * (a store client that is shutting down throws its own exceptions): the handler ran, so nothing
	 * here may reach the container as the handler's failure.
	 */
	private IdempotencyRecord complete(Delivery delivery, Completion completion) {
		try {
			return this.store.complete(delivery.claim(), completion);
		}
		catch (ClaimLostException | StoreUnavailableException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new StoreUnavailableException("Completion record of the message at " + delivery.describe()
					+ " not written: " + ex, ex);
		}
	}

	/**
	 * Parks the completion of a delivery whose handler returned and whose record is still being
	 * written (the listener is stopping: the write may be waiting on a store that does not answer).
	 * @param delivery the delivery
	 */
	void parkIfUnrecorded(Delivery delivery) {
		Completion completion = delivery.unrecordedCompletion();
		if (completion != null) {
			parkUnlessParked(delivery, completion);
		}
	}

	/** Parks the completion once; whether it is parked. */
	private boolean parkUnlessParked(Delivery delivery, Completion completion) {
		if (delivery.completionParked()) {
			return true;
		}
		if (!park(delivery, completion)) {
			return false;
		}
		delivery.markCompletionParked();
		return true;
	}

	/** Whether a parking whose answer was lost took effect: its entry holds this claim's token. */
	private boolean parkedAfterAll(Delivery delivery) {
		try {
			return this.parking.find(delivery.storeKey())
				.filter((parked) -> parked.token().equals(delivery.claim().token()))
				.isPresent();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Whether the attempt that took this claim over recorded this very completion, parked here: the
	 * handler ran once and its work is recorded, so the message is acked as its key's duplicate.
	 */
	private boolean recordedByTheNextAttempt(Delivery delivery, Completion completion) {
		try {
			return this.store.find(delivery.storeKey())
				.filter((record) -> record.state() == RecordState.COMPLETED
						&& record.streamSequence() == completion.streamSequence()
						&& Objects.equals(record.resultSummary(), completion.resultSummary()))
				.isPresent();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Parks a completion the store did not take; {@code false} when parking is disabled or failed (a
	 * warning).
	 */
	private boolean park(Delivery delivery, Completion completion) {
		try {
			return this.parking.park(delivery.storeKey(),
					new CompletionParking.Parked(delivery.claim().token(), completion));
		}
		catch (StoreUnavailableException ex) {
			if (parkedAfterAll(delivery)) {
				return true;
			}
			logger.warn("Completion of the message at " + delivery.describe() + " could not be parked on NATS "
					+ "either; a process that stops before its record is written leaves the task to run again: "
					+ ex.getMessage());
			return false;
		}
	}

	/**
	 * Writes the completion record on {@code executor} as {@link #write} does, so that the handler's
	 * thread is free for its next message meanwhile. A write that throws in an unforeseen way is a
	 * {@link Settlement.CompletionUnrecorded} (not acked). When the executor refuses the write, it
	 * runs here. The record's summary of the result is taken here, on the handler's thread, before
	 * the handler's thread moves on.
	 * @return the settlement, once the write ended
	 */
	CompletableFuture<Settlement> writeLater(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Object result,
			Executor executor) {
		Completion completion = completionOf(delivery, result);
		Supplier<Settlement> write = () -> {
			try {
				return Uninterrupted.call(() -> writeCompletion(delivery, heartbeat, completion));
			}
			catch (RuntimeException ex) {
				return new Settlement.CompletionUnrecorded(ex);
			}
		};
		try {
			return CompletableFuture.supplyAsync(write, executor);
		}
		catch (RejectedExecutionException ex) {
			return CompletableFuture.completedFuture(write.get());
		}
	}

	/**
	 * Writes the completion record once, inside the transaction of a transactional listener: a
	 * failure is the transaction's (it rolls back), so there is nothing to retry here.
	 * @throws StoreUnavailableException when the record could not be written
	 */
	Settlement writeInTransaction(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Object result) {
		Completion completion = completionOf(delivery, result);
		try {
			heartbeat.exclusive(() -> this.store.complete(delivery.claim(), completion));
			return new Settlement.Processed();
		}
		catch (ClaimLostException ex) {
			return new Settlement.ClaimLost();
		}
	}

	private Completion completionOf(Delivery delivery, Object result) {
		return Completion.completed(delivery.consumer(), delivery.streamSequence(), summary(delivery, result));
	}

	/**
	 * The record's summary of a handler's result; a result whose {@code toString()} throws (a lazy
	 * entity outside its session) is summarised by the exception's type: the handler succeeded.
	 */
	private String summary(Delivery delivery, Object result) {
		if (result == null) {
			return null;
		}
		String text;
		try {
			text = result.toString();
		}
		catch (RuntimeException ex) {
			logger.warn("Result of the handler of the message at " + delivery.describe() + " has a toString() that "
					+ "threw " + ex.getClass().getName() + "; its completion record keeps that instead of a summary");
			text = "(toString() threw " + ex.getClass().getName() + ")";
		}
		return (text.length() > this.summaryMaxLength) ? text.substring(0, this.summaryMaxLength) : text;
	}

}
