package dev.exactlyonce.audit;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.StreamState;

import dev.exactlyonce.audit.Discrepancy.Type;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordState;

/**
 * Balances the books of each declared consumer over a time window: the stream's sequences, the
 * store's completion records, the consumer's ack floor and the dead-letter stream.
 * <p>
 * The range of stream sequences inspected runs from the lowest to the highest sequence with
 * evidence in the window (a completion record or a dead letter). Every sequence in it must be
 * completed, dead-lettered, or still on the stream awaiting processing; anything else is listed.
 * A WorkQueue or Interest stream removes acked messages, so there a sequence that is gone is the
 * finding "acknowledged without a completion record" (or purged by an operator) unless a record
 * accounts for it: its own completion, or its note among the duplicate copies of a final record of a
 * consumer on the same stream ({@link IdempotencyRecord#duplicateSequences()}: a copy settled as a
 * duplicate, by any instance). A Limits stream keeps acked messages, so there a message at or below
 * the ack floor is the finding only when neither its sequence nor its idempotency key (resolved by
 * {@link MessageKeys} as the listener resolves it) has a record. Messages are read through
 * {@link RawStreamReader}, so headers the Java client cannot decode never fail a run. Duplicate
 * counts come from {@link PipelineTally}: this instance, since start-up.
 */
public class Reconciler {

	private final Connection connection;

	private final RawStreamReader reader;

	private final Map<String, ConsumerSettings> consumers;

	private final IdempotencyStore store;

	private final DeadLetters deadLetters;

	private final PipelineTally tally;

	private final long maxSequences;

	private final MessageKeys keys;

	private final Clock clock;

	/**
	 * Creates the reconciler.
	 * @param connection the NATS connection
	 * @param reader reads messages back from their streams
	 * @param consumers the declared consumers, by name
	 * @param store the idempotency store (records are listed when it is a {@link RecordScanner})
	 * @param deadLetters the dead-letter stream reader
	 * @param tally the duplicate events of this instance
	 * @param maxSequences the most stream sequences inspected per consumer
	 * @param keys resolves the idempotency keys of messages still on their stream
	 * @param clock the clock
	 */
	public Reconciler(Connection connection, RawStreamReader reader, Map<String, ConsumerSettings> consumers,
			IdempotencyStore store, DeadLetters deadLetters, PipelineTally tally, long maxSequences, MessageKeys keys,
			Clock clock) {
		this.connection = connection;
		this.reader = reader;
		this.consumers = Map.copyOf(consumers);
		this.store = store;
		this.deadLetters = deadLetters;
		this.tally = tally;
		this.maxSequences = maxSequences;
		this.keys = keys;
		this.clock = clock;
	}

	/**
	 * Reconciles every declared consumer over the window ending now.
	 * @param window how far back to look
	 * @return the report; a run that could not read the server reports its error
	 */
	public ReconciliationReport reconcile(Duration window) {
		Instant to = this.clock.instant();
		Instant from = to.minus(window);
		long started = System.nanoTime();
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			List<ConsumerRun> runs = new ArrayList<>();
			for (ConsumerSettings consumer : sorted()) {
				runs.add(new ConsumerRun(consumer, management.getStreamInfo(consumer.stream(),
						StreamInfoOptions.deletedDetails()), management.getConsumerInfo(consumer.stream(),
						consumer.consumer()), from, to));
			}
			boolean scanned = scan(runs);
			List<ConsumerReconciliation> results = new ArrayList<>();
			for (ConsumerRun run : runs) {
				results.add(run.finish(scanned));
			}
			return new ReconciliationReport(from, to, elapsedMillis(started), results, null);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			return new ReconciliationReport(from, to, elapsedMillis(started), List.of(),
					ex.getClass().getSimpleName() + ": " + ex.getMessage());
		}
	}

	private List<ConsumerSettings> sorted() {
		return this.consumers.values()
			.stream()
			.sorted((a, b) -> a.consumer().compareTo(b.consumer()))
			.toList();
	}

	/** Offers every record to every run in one pass over the store; false when it cannot be listed. */
	private boolean scan(List<ConsumerRun> runs) {
		if (!(this.store instanceof RecordScanner scanner)) {
			return false;
		}
		scanner.scan((record) -> runs.forEach((run) -> run.offer(record)));
		return true;
	}

	private static long elapsedMillis(long started) {
		return Duration.ofNanos(System.nanoTime() - started).toMillis();
	}

	/**
	 * The reconciliation of one consumer. The store's records are offered one by one and reduced
	 * as they come: what the range of sequences needs is one bit per stream sequence
	 * ({@link SequenceSet}), so memory does not grow with the records kept. A record may be
	 * offered twice (a key rewritten during the scan): everything counted is counted per sequence.
	 * The run covers the stream as it was when the run started: records of messages stored later
	 * count as evidence in the next run (their duplicate notes count in this one).
	 */
	private final class ConsumerRun {

		private final ConsumerSettings consumer;

		private final StreamState state;

		private final RetentionPolicy retention;

		private final long ackFloor;

		private final long pending;

		private final String filter;

		private final Set<Long> deleted;

		private final Instant from;

		private final Instant to;

		private final Instant ackDeadline;

		private final String keyPrefix;

		private final SequenceSet accounted = new SequenceSet();

		private final SequenceSet otherConsumers = new SequenceSet();

		private final SequenceSet deadLetteredInWindow = new SequenceSet();

		private final SequenceSet completedInWindow = new SequenceSet();

		private final SequenceSet storedLater = new SequenceSet();

		private long evidenceLow = Long.MAX_VALUE;

		private long evidenceHigh;

		private final Map<Long, IdempotencyRecord> completedNotAcked = new TreeMap<>();

		private final Map<String, Discrepancy> stuckClaims = new TreeMap<>();

		private final List<Discrepancy> discrepancies = new ArrayList<>();

		private final List<String> notes = new ArrayList<>();

		ConsumerRun(ConsumerSettings consumer, StreamInfo streamInfo, ConsumerInfo consumerInfo, Instant from,
				Instant to) {
			this.consumer = consumer;
			this.state = streamInfo.getStreamState();
			this.retention = streamInfo.getConfiguration().getRetentionPolicy();
			this.ackFloor = consumerInfo.getAckFloor().getStreamSequence();
			this.pending = consumerInfo.getNumPending();
			this.filter = consumerInfo.getConsumerConfiguration().getFilterSubject();
			this.deleted = new HashSet<>((this.state.getDeleted() != null) ? this.state.getDeleted() : List.of());
			this.from = from;
			this.to = to;
			this.ackDeadline = to.minus(consumer.effectiveAckWait());
			this.keyPrefix = consumer.namespace() + ":";
		}

		/** Takes in one record of the store. */
		void offer(IdempotencyRecord record) {
			stuckClaim(record);
			long sequence = record.streamSequence();
			if (record.listener() == null || sequence <= 0) {
				return;
			}
			if (this.consumer.consumer().equals(record.listener())) {
				this.accounted.add(sequence);
				record.duplicateSequences().forEach(this.accounted::add);
				if (sequence > this.state.getLastSequence()) {
					this.storedLater.add(sequence);
				}
				else if (inWindow(record.completedAt())) {
					ownRecordInWindow(record);
				}
			}
			else if (isSameStream(record.listener())) {
				this.otherConsumers.add(sequence);
				record.duplicateSequences().forEach(this.otherConsumers::add);
			}
		}

		/**
		 * A record of this consumer written in the window: its message and the earlier copies of its
		 * task (the delivery a wait suspended, a requeued or replayed copy) are its evidence.
		 */
		private void ownRecordInWindow(IdempotencyRecord record) {
			long sequence = record.streamSequence();
			this.evidenceLow = Math.min(this.evidenceLow, sequence);
			record.duplicateSequences()
				.stream()
				.filter((copy) -> copy > 0)
				.forEach((copy) -> this.evidenceLow = Math.min(this.evidenceLow, copy));
			this.evidenceHigh = Math.max(this.evidenceHigh, sequence);
			if (record.state() == RecordState.COMPLETED) {
				this.completedInWindow.add(sequence);
				if (record.completedAt().isBefore(this.ackDeadline) && isUnacked(sequence)) {
					this.completedNotAcked.put(sequence, record);
				}
			}
			else if (record.state() == RecordState.DEAD_LETTERED) {
				this.deadLetteredInWindow.add(sequence);
			}
		}

		private void stuckClaim(IdempotencyRecord record) {
			if (record.state() == RecordState.IN_PROGRESS && record.key().startsWith(this.keyPrefix)
					&& !record.leaseUntil().isAfter(this.to)) {
				this.stuckClaims.put(record.key(), new Discrepancy(Type.STUCK_CLAIM, null, record.key(), "claimed by "
						+ record.owner() + " at " + record.startedAt() + " (attempt " + record.attempts()
						+ "), lease ran out at " + record.leaseUntil()));
			}
		}

		/** Reads the stream and dead letters over the range the records gave, and reports. */
		ConsumerReconciliation finish(boolean scanned) throws IOException, JetStreamApiException {
			Reconciler.this.tally
				.events(Instant.EPOCH, this.to, (event) -> event.kind() == PipelineTally.Kind.IDEMPOTENCY_DUPLICATE
						&& this.consumer.consumer().equals(event.consumer()))
				.forEach((event) -> this.accounted.add(event.streamSequence()));
			List<DeadLetterEntry> deadLettered = readDeadLetters();
			long[] range = range();
			long published = 0;
			long unfinished = 0;
			for (long sequence = range[0]; range[0] > 0 && sequence <= range[1]; sequence++) {
				if (this.accounted.contains(sequence)) {
					published++;
					continue;
				}
				if (this.otherConsumers.contains(sequence)) {
					continue;
				}
				RawStreamMessage message = isPresent(sequence)
						? Reconciler.this.reader.read(this.consumer.stream(), sequence).orElse(null) : null;
				if (message != null) {
					if (!Subjects.matches(this.filter, message.subject())) {
						continue;
					}
					published++;
					if (this.retention == RetentionPolicy.Limits && sequence <= this.ackFloor) {
						ackedWithoutSequenceRecord(message);
					}
					else {
						unfinished++;
					}
				}
				else if (scanned) {
					published++;
					this.discrepancies.add(new Discrepancy(Type.ACKED_WITHOUT_RECORD, sequence, null,
							"gone from the stream with no completion record, dead letter or duplicate note (acked "
									+ "without a record, a duplicate whose note on its key's record failed, purged, removed "
									+ "by a stream limit" + ((this.filter != null && !this.filter.isEmpty())
											? ", or a subject outside filter " + this.filter + ")" : ")")));
				}
			}
			this.completedNotAcked.values()
				.forEach((record) -> this.discrepancies.add(new Discrepancy(Type.COMPLETED_NOT_ACKED,
						record.streamSequence(), record.key(), "completed at " + record.completedAt() + " but "
								+ ((this.retention == RetentionPolicy.Limits) ? "above the ack floor " + this.ackFloor
										: "still on the stream"))));
			this.discrepancies.addAll(this.stuckClaims.values());
			deadLettered.stream()
				.filter(this::inWindow)
				.forEach((entry) -> this.discrepancies.add(new Discrepancy(Type.DEAD_LETTERED, entry.streamSequence(),
						entry.key(), entry.reason())));
			List<PipelineTally.Event> reruns = reachedExecution();
			if (!scanned) {
				this.notes.add("store '" + Reconciler.this.store.name() + "' cannot list its records: completions "
						+ "and stuck claims are not checked");
			}
			if (this.storedLater.size() > 0) {
				this.notes.add(this.storedLater.size() + " records of messages stored after the run started (above "
						+ "sequence " + this.state.getLastSequence() + ") are left to the next run");
			}
			if (range[0] > 0 && range[0] > this.evidenceLow) {
				this.notes.add("only the last " + Reconciler.this.maxSequences
						+ " sequences were inspected (exactlyonce.reconciliation.max-sequences)");
			}
			this.notes.add("duplicate counts are this instance's since it started; sum exactlyonce.* meters "
					+ "across instances for a fleet");
			return new ConsumerReconciliation(this.consumer.consumer(), this.consumer.stream(), this.retention.name(),
					range[0], range[1], published, scanned ? this.completedInWindow.size() : null,
					this.deadLetteredInWindow.size(),
					unfinished, this.ackFloor, this.pending, streamDedup(), idempotencyDuplicates(), reruns.size(),
					List.copyOf(this.discrepancies), List.copyOf(this.notes));
		}

		/**
		 * A message acked with no record of its own: a finding unless its key has a final record
		 * (read by key: only such messages cost a store read).
		 */
		private void ackedWithoutSequenceRecord(RawStreamMessage message) {
			String key = Reconciler.this.keys.storeKey(this.consumer.consumer(), message).orElse(null);
			if (key != null && Reconciler.this.store.find(key).filter(IdempotencyRecord::isFinal).isPresent()) {
				return;
			}
			this.discrepancies.add(new Discrepancy(Type.ACKED_WITHOUT_RECORD, message.sequence(), key,
					"at or below the ack floor " + this.ackFloor + " with no completion record or dead letter"
							+ ((key != null) ? " for its key" : "")));
		}

		private boolean isSameStream(String otherConsumer) {
			ConsumerSettings other = Reconciler.this.consumers.get(otherConsumer);
			return other != null && other.stream().equals(this.consumer.stream());
		}

		private boolean isPresent(long sequence) {
			return sequence >= this.state.getFirstSequence() && sequence <= this.state.getLastSequence()
					&& !this.deleted.contains(sequence);
		}

		private boolean isUnacked(long sequence) {
			return (this.retention == RetentionPolicy.Limits) ? sequence > this.ackFloor : isPresent(sequence);
		}

		/**
		 * The consumer's dead letters; those parked in the window are evidence when their message
		 * was stored before the run started.
		 */
		private List<DeadLetterEntry> readDeadLetters() throws IOException, JetStreamApiException {
			List<DeadLetterEntry> entries = Reconciler.this.deadLetters
				.read(this.consumer.deadLetterSubject(), Reconciler.this.maxSequences)
				.stream()
				.filter((entry) -> this.consumer.stream().equals(entry.stream())
						&& this.consumer.consumer().equals(entry.consumer()))
				.toList();
			for (DeadLetterEntry entry : entries) {
				long sequence = entry.streamSequence();
				this.accounted.add(sequence);
				if (inWindow(entry)) {
					this.deadLetteredInWindow.add(sequence);
					if (sequence > 0 && sequence <= this.state.getLastSequence()) {
						this.evidenceLow = Math.min(this.evidenceLow, sequence);
						this.evidenceHigh = Math.max(this.evidenceHigh, sequence);
					}
				}
			}
			return entries;
		}

		private long[] range() {
			if (this.evidenceHigh == 0) {
				return new long[] { 0, 0 };
			}
			return new long[] { Math.max(this.evidenceLow, this.evidenceHigh - Reconciler.this.maxSequences + 1),
					this.evidenceHigh };
		}

		private List<PipelineTally.Event> reachedExecution() {
			List<PipelineTally.Event> reruns = Reconciler.this.tally.events(this.from, this.to,
					(event) -> this.consumer.consumer().equals(event.consumer())
							&& (event.kind() == PipelineTally.Kind.CLAIM_LOST
									|| event.kind() == PipelineTally.Kind.ABANDONED_RERUN));
			reruns.forEach((event) -> this.discrepancies.add(new Discrepancy(Type.REACHED_EXECUTION,
					event.streamSequence(), event.key(), (event.kind() == PipelineTally.Kind.CLAIM_LOST)
							? "handler finished after its claim was taken over" : "handler ran again after an abandoned attempt")));
			return reruns;
		}

		private long streamDedup() {
			return Reconciler.this.tally
				.events(this.from, this.to, (event) -> event.kind() == PipelineTally.Kind.STREAM_DEDUP
						&& this.consumer.stream().equals(event.stream()) && Subjects.matches(this.filter, event.subject()))
				.size();
		}

		private long idempotencyDuplicates() {
			return Reconciler.this.tally
				.events(this.from, this.to, (event) -> event.kind() == PipelineTally.Kind.IDEMPOTENCY_DUPLICATE
						&& this.consumer.consumer().equals(event.consumer()))
				.size();
		}

		private boolean inWindow(DeadLetterEntry entry) {
			return inWindow(entry.at());
		}

		private boolean inWindow(Instant at) {
			return at != null && !at.isBefore(this.from) && at.isBefore(this.to);
		}

	}

}
