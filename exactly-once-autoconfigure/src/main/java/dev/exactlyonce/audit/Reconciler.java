package dev.exactlyonce.audit;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
			List<IdempotencyRecord> records = records();
			JetStreamManagement management = this.connection.jetStreamManagement();
			List<ConsumerReconciliation> results = new ArrayList<>();
			for (ConsumerSettings consumer : sorted()) {
				results.add(new ConsumerRun(management, consumer, records, from, to).run());
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

	private List<IdempotencyRecord> records() {
		if (!(this.store instanceof RecordScanner scanner)) {
			return null;
		}
		List<IdempotencyRecord> records = new ArrayList<>();
		scanner.scan(records::add);
		return records;
	}

	private static long elapsedMillis(long started) {
		return Duration.ofNanos(System.nanoTime() - started).toMillis();
	}

	/** The reconciliation of one consumer. */
	private final class ConsumerRun {

		private final JetStreamManagement management;

		private final ConsumerSettings consumer;

		private final List<IdempotencyRecord> allRecords;

		private final Instant from;

		private final Instant to;

		private final Map<Long, IdempotencyRecord> records = new HashMap<>();

		private final Map<String, IdempotencyRecord> finalRecordsByKey = new HashMap<>();

		private final Map<Long, DeadLetterEntry> deadLettersBySequence = new HashMap<>();

		private final Set<Long> otherConsumers = new HashSet<>();

		private final Set<Long> caughtDuplicates = new HashSet<>();

		private final Set<Long> notedDuplicates = new HashSet<>();

		private final List<Discrepancy> discrepancies = new ArrayList<>();

		private final List<String> notes = new ArrayList<>();

		ConsumerRun(JetStreamManagement management, ConsumerSettings consumer, List<IdempotencyRecord> allRecords,
				Instant from, Instant to) {
			this.management = management;
			this.consumer = consumer;
			this.allRecords = allRecords;
			this.from = from;
			this.to = to;
		}

		ConsumerReconciliation run() throws IOException, JetStreamApiException {
			String stream = this.consumer.stream();
			StreamInfo streamInfo = this.management.getStreamInfo(stream, StreamInfoOptions.deletedDetails());
			ConsumerInfo consumerInfo = this.management.getConsumerInfo(stream, this.consumer.consumer());
			RetentionPolicy retention = streamInfo.getConfiguration().getRetentionPolicy();
			long ackFloor = consumerInfo.getAckFloor().getStreamSequence();
			String filter = consumerInfo.getConsumerConfiguration().getFilterSubject();
			indexRecords();
			Reconciler.this.tally
				.events(Instant.EPOCH, this.to, (event) -> event.kind() == PipelineTally.Kind.IDEMPOTENCY_DUPLICATE
						&& this.consumer.consumer().equals(event.consumer()))
				.forEach((event) -> this.caughtDuplicates.add(event.streamSequence()));
			List<DeadLetterEntry> deadLettered = readDeadLetters();
			Set<Long> evidence = evidence(deadLettered);
			StreamState state = streamInfo.getStreamState();
			Set<Long> deleted = new HashSet<>((state.getDeleted() != null) ? state.getDeleted() : List.of());
			long[] range = range(evidence);
			long published = 0;
			long unfinished = 0;
			for (long sequence = range[0]; range[0] > 0 && sequence <= range[1]; sequence++) {
				if (this.records.containsKey(sequence) || this.deadLettersBySequence.containsKey(sequence)) {
					published++;
					continue;
				}
				if (this.caughtDuplicates.contains(sequence) || this.notedDuplicates.contains(sequence)) {
					published++;
					continue;
				}
				if (this.otherConsumers.contains(sequence)) {
					continue;
				}
				boolean present = sequence >= state.getFirstSequence() && sequence <= state.getLastSequence()
						&& !deleted.contains(sequence);
				RawStreamMessage message = present ? Reconciler.this.reader.read(stream, sequence).orElse(null) : null;
				if (message != null) {
					if (!Subjects.matches(filter, message.subject())) {
						continue;
					}
					published++;
					if (retention == RetentionPolicy.Limits && sequence <= ackFloor) {
						ackedWithoutSequenceRecord(message, ackFloor);
					}
					else {
						unfinished++;
					}
				}
				else if (this.allRecords != null) {
					published++;
					this.discrepancies.add(new Discrepancy(Type.ACKED_WITHOUT_RECORD, sequence, null,
							"gone from the stream with no completion record, dead letter or duplicate note (acked "
									+ "without a record, a duplicate whose note on its key's record failed, purged, removed "
									+ "by a stream limit" + ((filter != null && !filter.isEmpty())
											? ", or a subject outside filter " + filter + ")" : ")")));
				}
			}
			completedNotAcked(retention, state, deleted, ackFloor);
			stuckClaims();
			deadLettered.stream()
				.filter(this::inWindow)
				.forEach((entry) -> this.discrepancies.add(new Discrepancy(Type.DEAD_LETTERED, entry.streamSequence(),
						entry.key(), entry.reason())));
			List<PipelineTally.Event> reruns = reachedExecution();
			if (this.allRecords == null) {
				this.notes.add("store '" + Reconciler.this.store.name() + "' cannot list its records: completions "
						+ "and stuck claims are not checked");
			}
			if (range[0] > 0 && range[0] > evidence.stream().mapToLong(Long::longValue).min().orElse(range[0])) {
				this.notes.add("only the last " + Reconciler.this.maxSequences
						+ " sequences were inspected (exactlyonce.reconciliation.max-sequences)");
			}
			this.notes.add("duplicate counts are this instance's since it started; sum exactlyonce.* meters "
					+ "across instances for a fleet");
			return new ConsumerReconciliation(this.consumer.consumer(), stream, retention.name(), range[0], range[1],
					published, (this.allRecords != null) ? completedInWindow() : null, deadLettered(deadLettered),
					unfinished, ackFloor, consumerInfo.getNumPending(), streamDedup(), idempotencyDuplicates(),
					reruns.size(), List.copyOf(this.discrepancies), List.copyOf(this.notes));
		}

		/** A message acked with no record of its own: a finding unless its key has a final record. */
		private void ackedWithoutSequenceRecord(RawStreamMessage message, long ackFloor) {
			String key = Reconciler.this.keys.storeKey(this.consumer.consumer(), message).orElse(null);
			if (key != null && this.finalRecordsByKey.containsKey(key)) {
				return;
			}
			this.discrepancies.add(new Discrepancy(Type.ACKED_WITHOUT_RECORD, message.sequence(), key,
					"at or below the ack floor " + ackFloor + " with no completion record or dead letter"
							+ ((key != null) ? " for its key" : "")));
		}

		private void indexRecords() {
			if (this.allRecords == null) {
				return;
			}
			for (IdempotencyRecord record : this.allRecords) {
				if (record.isFinal()) {
					this.finalRecordsByKey.put(record.key(), record);
				}
				if (record.listener() == null || record.streamSequence() <= 0) {
					continue;
				}
				if (this.consumer.consumer().equals(record.listener())) {
					this.records.put(record.streamSequence(), record);
					this.notedDuplicates.addAll(record.duplicateSequences());
				}
				else if (isSameStream(record.listener())) {
					this.otherConsumers.add(record.streamSequence());
					this.otherConsumers.addAll(record.duplicateSequences());
				}
			}
		}

		private boolean isSameStream(String otherConsumer) {
			ConsumerSettings other = Reconciler.this.consumers.get(otherConsumer);
			return other != null && other.stream().equals(this.consumer.stream());
		}

		private List<DeadLetterEntry> readDeadLetters() throws IOException, JetStreamApiException {
			List<DeadLetterEntry> entries = Reconciler.this.deadLetters
				.read(this.consumer.deadLetterSubject(), Reconciler.this.maxSequences)
				.stream()
				.filter((entry) -> this.consumer.stream().equals(entry.stream())
						&& this.consumer.consumer().equals(entry.consumer()))
				.toList();
			entries.forEach((entry) -> this.deadLettersBySequence.put(entry.streamSequence(), entry));
			return entries;
		}

		private Set<Long> evidence(List<DeadLetterEntry> deadLettered) {
			Set<Long> evidence = new HashSet<>();
			this.records.values()
				.stream()
				.filter((record) -> record.completedAt() != null && inWindow(record.completedAt()))
				.forEach((record) -> evidence.add(record.streamSequence()));
			deadLettered.stream().filter(this::inWindow).forEach((entry) -> evidence.add(entry.streamSequence()));
			return evidence;
		}

		private long[] range(Set<Long> evidence) {
			if (evidence.isEmpty()) {
				return new long[] { 0, 0 };
			}
			long low = evidence.stream().mapToLong(Long::longValue).min().getAsLong();
			long high = evidence.stream().mapToLong(Long::longValue).max().getAsLong();
			return new long[] { Math.max(low, high - Reconciler.this.maxSequences + 1), high };
		}

		private void completedNotAcked(RetentionPolicy retention, StreamState state, Set<Long> deleted, long ackFloor) {
			Instant ackDeadline = Reconciler.this.clock.instant().minus(this.consumer.effectiveAckWait());
			this.records.values()
				.stream()
				.filter((record) -> record.state() == RecordState.COMPLETED && inWindow(record.completedAt())
						&& record.completedAt().isBefore(ackDeadline))
				.sorted((a, b) -> Long.compare(a.streamSequence(), b.streamSequence()))
				.forEach((record) -> {
					long sequence = record.streamSequence();
					boolean present = sequence >= state.getFirstSequence() && sequence <= state.getLastSequence()
							&& !deleted.contains(sequence);
					boolean unacked = (retention == RetentionPolicy.Limits) ? sequence > ackFloor : present;
					if (unacked) {
						this.discrepancies.add(new Discrepancy(Type.COMPLETED_NOT_ACKED, sequence, record.key(),
								"completed at " + record.completedAt() + " but "
										+ ((retention == RetentionPolicy.Limits) ? "above the ack floor " + ackFloor
												: "still on the stream")));
					}
				});
		}

		private void stuckClaims() {
			if (this.allRecords == null) {
				return;
			}
			Instant now = Reconciler.this.clock.instant();
			String prefix = this.consumer.consumer() + ":";
			this.allRecords.stream()
				.filter((record) -> record.state() == RecordState.IN_PROGRESS && record.key().startsWith(prefix)
						&& !record.leaseUntil().isAfter(now))
				.forEach((record) -> this.discrepancies.add(new Discrepancy(Type.STUCK_CLAIM, null, record.key(),
						"claimed by " + record.owner() + " at " + record.startedAt() + " (attempt "
								+ record.attempts() + "), lease ran out at " + record.leaseUntil())));
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

		private long completedInWindow() {
			return this.records.values()
				.stream()
				.filter((record) -> record.state() == RecordState.COMPLETED && inWindow(record.completedAt()))
				.count();
		}

		private long deadLettered(List<DeadLetterEntry> deadLettered) {
			Set<Long> sequences = new HashSet<>();
			deadLettered.stream().filter(this::inWindow).forEach((entry) -> sequences.add(entry.streamSequence()));
			this.records.values()
				.stream()
				.filter((record) -> record.state() == RecordState.DEAD_LETTERED && inWindow(record.completedAt()))
				.forEach((record) -> sequences.add(record.streamSequence()));
			return sequences.size();
		}

		private long streamDedup() {
			return Reconciler.this.tally
				.events(this.from, this.to, (event) -> event.kind() == PipelineTally.Kind.STREAM_DEDUP
						&& this.consumer.stream().equals(event.stream()))
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
