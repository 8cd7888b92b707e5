package dev.exactlyonce.takeover;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusException;
import io.nats.client.Message;
import io.nats.client.support.NatsRequestCompletableFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Run once as an incarnation starts: takes over the tasks of earlier incarnations of the same
 * instance id that are gone, so that they resume soon after the restart instead of one ack wait and
 * one lease after the crash. An earlier incarnation is gone when its record went unwritten for the
 * silence (a live incarnation rewrites it every heartbeat; the default silence outlasts a reconnect and
 * a request, see {@link #silence}; {@code exactlyonce.takeover.silence} may shorten it, down to 0, where
 * the platform never runs two processes with one instance id) <em>and</em> the server refuses a request
 * on its subject because nobody subscribes to it any more ("no responders": its NATS connection is
 * closed) <em>and</em>, read again after that refusal, its record is still the same revision. For
 * each task its record lists, the claim's lease is ended at once, as a compare-and-set on the claim's
 * fencing token (a claim completed or claimed again since is left alone), so the attempt is an
 * abandoned one and the listener's {@code on-abandoned} policy applies; then the message is nak'd so
 * the server redelivers it now. Whatever fails here leaves the task to its redelivery after the ack
 * wait, as without a takeover.
 */
final class RestartTakeover {

	private static final Log logger = LogFactory.getLog(RestartTakeover.class);

	/** The status of the server's answer to a request nobody subscribes to. */
	private static final int NO_RESPONDERS = 503;

	private final InstanceIdentity identity;

	private final InstanceRecords records;

	private final IdempotencyStore store;

	private final Connection connection;

	private final PendingMessages pending;

	private final Duration requestTimeout;

	private final Duration silence;

	RestartTakeover(InstanceIdentity identity, InstanceRecords records, IdempotencyStore store, Connection connection,
			PendingMessages pending, Duration requestTimeout, Duration silence) {
		this.identity = identity;
		this.records = records;
		this.store = store;
		this.connection = connection;
		this.pending = pending;
		this.requestTimeout = requestTimeout;
		this.silence = silence;
	}

	/**
	 * How long an incarnation's record must have gone unwritten before it may count as gone: twice
	 * what a live incarnation's silence can last without a crash (a reconnect wait, a heartbeat and a
	 * request timeout), 15 s with the defaults (2 s, 0.5 s and 5 s).
	 * @param reconnectWait the NATS client's wait between reconnect attempts
	 * @param requestTimeout how long one NATS request may take
	 * @return the silence
	 */
	static Duration silence(Duration reconnectWait, Duration requestTimeout) {
		return reconnectWait.plus(InstancePresence.HEARTBEAT).plus(requestTimeout).multipliedBy(2);
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
		Optional<InstanceRecords.Stored> read = this.records.read(key);
		if (read.isEmpty() || leftToLiveTwin(key, read.get())) {
			return 0;
		}
		InstanceRecords.Stored earlier = read.get();
		Duration quiet = earlier.ageAt(own);
		if (quiet.compareTo(this.silence) < 0) {
			// a heartbeat more: this incarnation's own record, read below for the server's now, lags by one
			Thread.sleep(this.silence.minus(quiet).plus(InstancePresence.HEARTBEAT).toMillis());
		}
		if (leftToLiveTwin(key, earlier)) {
			return 0;
		}
		Optional<InstanceRecords.Stored> again = this.records.read(key);
		Optional<InstanceRecords.Stored> now = this.records.read(own.key());
		if (again.isEmpty() || again.get().revision() != earlier.revision() || now.isEmpty()
				|| earlier.ageAt(now.get()).compareTo(this.silence) < 0) {
			logger.info("Instance '" + earlier.record().instanceId() + "' incarnation " + earlier.record().incarnation()
					+ " wrote its record again or was not silent for " + DurationText.of(this.silence)
					+ ": its tasks are left to it");
			return 0;
		}
		InstanceRecord gone = earlier.record();
		Duration unchanged = earlier.ageAt(now.get()).truncatedTo(ChronoUnit.MILLIS);
		logger.info("Instance '" + gone.instanceId() + "' incarnation " + gone.incarnation() + " is gone (not subscribed, "
				+ "record unchanged for " + DurationText.of(unchanged) + "); taking over its " + gone.tasks().size()
				+ " running task(s)");
		List<RunningTask> taken = gone.tasks().stream().filter(this::endLease).toList();
		this.pending.nak(taken);
		this.records.delete(key, earlier.revision());
		return taken.size();
	}

	/**
	 * Whether an earlier incarnation is still connected, its tasks then left to it: two live processes
	 * share this instance id (logged at ERROR), or the earlier one's connection is not closed yet.
	 */
	private boolean leftToLiveTwin(String key, InstanceRecords.Stored earlier) throws InterruptedException {
		if (!present(key)) {
			return false;
		}
		logger.error("Instance '" + earlier.record().instanceId() + "' incarnation " + earlier.record().incarnation()
				+ " is still connected to NATS (its subject did not refuse a request): two live processes share "
				+ "exactlyonce.instance-id '" + earlier.record().instanceId() + "' (give each replica its own), or the "
				+ "earlier process is frozen or its host died without closing its connection. Its "
				+ earlier.record().tasks().size() + " running task(s) are left to it (they resume at their redelivery "
				+ "if it is dead)");
		return true;
	}

	/**
	 * Whether the incarnation with this key may still be connected: only the server's "no responders"
	 * answer (nobody subscribes to its subject) says it is not. The incarnation never answers, so
	 * anything else (a timeout, a closing connection, an error) counts as present.
	 */
	private boolean present(String key) throws InterruptedException {
		CompletableFuture<Message> request = this.connection.requestWithTimeout(InstanceIdentity.subjectOf(key),
				new byte[0], this.requestTimeout);
		try {
			Message answer = request.get(this.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
			return !(answer.isStatusMessage() && answer.getStatus().getCode() == NO_RESPONDERS);
		}
		catch (CancellationException ex) {
			// jnats cancels a request on "no responders", but also when it times out or the connection closes
			return !(request instanceof NatsRequestCompletableFuture future) || future.wasCancelledTimedOut()
					|| future.wasCancelledClosing();
		}
		catch (ExecutionException ex) {
			// a connection that reports "no responders" fails the request with the status
			return !(ex.getCause() instanceof JetStreamStatusException status) || status.getStatus() == null
					|| status.getStatus().getCode() != NO_RESPONDERS;
		}
		catch (TimeoutException | RuntimeException ex) {
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
