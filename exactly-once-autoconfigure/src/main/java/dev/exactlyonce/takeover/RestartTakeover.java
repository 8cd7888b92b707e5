package dev.exactlyonce.takeover;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Run once as an incarnation starts: takes over the tasks of earlier incarnations of the same
 * instance id that are gone, so that they resume at once instead of one ack wait and one lease
 * after the crash. An earlier incarnation is gone when nobody subscribes to its subject any more (its
 * NATS connection is closed: the process died, or is cut off from NATS) <em>and</em> its record was not
 * rewritten for {@link #SILENCE} (a live incarnation rewrites it every heartbeat). For each task its
 * record lists, the claim's lease is ended at once, as a compare-and-set on the claim's fencing token
 * (a claim completed or claimed again since is left alone), so the attempt is an abandoned one and
 * the listener's {@code on-abandoned} policy applies; then the message is nak'd so the server
 * redelivers it now. Whatever fails here leaves the task to its redelivery after the ack wait, as
 * without a takeover.
 */
final class RestartTakeover {

	private static final Log logger = LogFactory.getLog(RestartTakeover.class);

	/** How long an incarnation's record must have gone unwritten before it counts as gone. */
	static final Duration SILENCE = InstancePresence.HEARTBEAT.multipliedBy(3);

	private final InstanceIdentity identity;

	private final InstanceRecords records;

	private final IdempotencyStore store;

	private final Connection connection;

	private final PendingMessages pending;

	private final Duration requestTimeout;

	RestartTakeover(InstanceIdentity identity, InstanceRecords records, IdempotencyStore store, Connection connection,
			PendingMessages pending, Duration requestTimeout) {
		this.identity = identity;
		this.records = records;
		this.store = store;
		this.connection = connection;
		this.pending = pending;
		this.requestTimeout = requestTimeout;
	}

	/**
	 * Takes over what gone incarnations of this instance id left.
	 * @param own this incarnation's record as first stored (its time is the server's now)
	 * @return how many tasks were taken over
	 */
	int run(InstanceRecords.Stored own) throws IOException, JetStreamApiException, InterruptedException {
		int taken = 0;
		for (String key : this.records.keys(this.identity.keyPrefix())) {
			if (!key.equals(own.key())) {
				taken += takeOver(key, own);
			}
		}
		return taken;
	}

	private int takeOver(String key, InstanceRecords.Stored own)
			throws IOException, JetStreamApiException, InterruptedException {
		Optional<InstanceRecords.Stored> earlier = this.records.read(key);
		if (earlier.isEmpty()) {
			return 0;
		}
		if (present(key)) {
			logger.info("Instance '" + earlier.get().record().instanceId() + "' incarnation "
					+ earlier.get().record().incarnation() + " may still be connected (its subject did not refuse a "
					+ "request): its " + earlier.get().record().tasks().size() + " running task(s) are left to it");
			return 0;
		}
		Duration quiet = earlier.get().ageAt(own);
		if (quiet.compareTo(SILENCE) < 0) {
			Thread.sleep(SILENCE.minus(quiet).toMillis());
			Optional<InstanceRecords.Stored> again = this.records.read(key);
			if (again.isEmpty() || again.get().revision() != earlier.get().revision() || present(key)) {
				return 0;
			}
		}
		InstanceRecord gone = earlier.get().record();
		logger.info("Instance '" + gone.instanceId() + "' incarnation " + gone.incarnation() + " is gone (not subscribed, "
				+ "record unchanged for " + SILENCE.toMillis() + " ms); taking over its " + gone.tasks().size()
				+ " running task(s)");
		List<RunningTask> taken = gone.tasks().stream().filter(this::endLease).toList();
		this.pending.nak(taken);
		this.records.delete(key, earlier.get().revision());
		return taken.size();
	}

	/**
	 * Whether the incarnation with this key may still be connected: a request on its subject is refused
	 * at once by the server when nobody subscribes to it ("no responders"); the incarnation never
	 * answers, so anything but that refusal (a timeout, an error) counts as present.
	 */
	private boolean present(String key) throws InterruptedException {
		try {
			Message answer = this.connection.request(InstanceIdentity.subjectOf(key), new byte[0])
				.get(this.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
			return !(answer.isStatusMessage() && answer.getStatus().getCode() == 503);
		}
		catch (CancellationException ex) {
			return false;
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			return true;
		}
	}

	/** Ends the lease of a gone incarnation's claim, unless the claim was completed or taken since. */
	private boolean endLease(RunningTask task) {
		Claim claim = new Claim(task.storeKey(), task.owner(), task.token(), 0, null, Instant.EPOCH);
		try {
			// a renewal to no lease at all ends the dead attempt's lease now, fenced by its token
			this.store.renew(claim, Duration.ZERO);
		}
		catch (ClaimLostException ex) {
			return false;
		}
		catch (RuntimeException ex) {
			logger.warn("Task '" + task.storeKey() + "' not taken over (it resumes at its redelivery): " + ex);
			return false;
		}
		return true;
	}

}
