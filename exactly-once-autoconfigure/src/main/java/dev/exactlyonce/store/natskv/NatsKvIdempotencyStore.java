package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.CompareAndSetIdempotencyStore;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * An {@link IdempotencyStore} in a NATS JetStream key-value bucket. Claims use {@code create}
 * (fails when the key exists) and every later write is an {@code update} against a known
 * revision, so each transition is a compare-and-set. The lease expiry lives in the value, also on
 * servers with per-key TTL (2.11+), which would delete an expired claim together with the attempt
 * history that tells an abandoned attempt from a new task. The bucket's TTL forgets records after
 * {@code completed-ttl} (plus the longest durable wait); a record that becomes WAITING writes its
 * sealed journal parts again first, so they are kept as long as it is.
 * <p>
 * Round trips: a fresh key is claimed with a single {@code create}; the record and revision this
 * instance wrote last for a claim it holds are remembered, so renewing and completing it is a
 * single {@code update} against that revision. Whenever the remembered revision is stale (someone
 * else wrote), the update fails and the store reads the key and decides again.
 * <p>
 * Leases are decided on the server's clock, not this instance's: {@link NatsKvServerTime} reads it
 * (once a minute) and the JVM's monotonic clock carries it forward, so instances whose wall clocks
 * disagree still agree on when a lease ends.
 * <p>
 * Step journals longer than a record holds are sealed in parts ({@link SealedJournal}). Transitions
 * read only the part inside the record; a claim that takes a task over and {@link #find} read the
 * whole journal; a completed or dead-lettered key is answered with the part inside. A part lives
 * the bucket's TTL from its own write, so a record can outlive parts it names: its duplicates are
 * still answered, renewals, completions and operators' actions still written, and only resuming
 * it or reading it whole fails, naming the part and the fix (a resubmit).
 */
public class NatsKvIdempotencyStore extends CompareAndSetIdempotencyStore implements RecordScanner {

	/** "wrong last sequence" / "key exists": someone wrote between our read and our write. */
	private static final int WRONG_LAST_SEQUENCE = 10071;

	/** What replicated buckets may answer instead of 10071. */
	private static final int KEY_EXISTS_REPLICATED = 10164;

	private static final int MAX_CAS_ROUNDS = 16;

	private static final int MAX_KEY_LENGTH = 512;

	/**
	 * How long a scan may receive nothing before it fails, and how long each of its requests may
	 * take (see {@link NatsKvBucketProvisioner#scanView}).
	 */
	static final Duration SCAN_TIMEOUT = Duration.ofSeconds(60);

	private static final long DEFAULT_MAX_PAYLOAD = 1024 * 1024;

	/** What a KV write sends besides the value: its subject and expected-sequence header. */
	private static final long HEADER_ROOM = 1024;

	private final KeyValue bucket;

	private final KeyValue scanView;

	private final SealedJournal journal;

	private final StoreKeyEncoder keyEncoder = new StoreKeyEncoder(MAX_KEY_LENGTH);

	private final Map<String, Held> heldByThisInstance = new ConcurrentHashMap<>();

	private final NatsKvJournalValues journalValues;

	private final long maxRecordBytes;

	/**
	 * Creates the store on an existing bucket of a server with the default {@code max_payload}
	 * (1 MiB).
	 * @param bucket the bucket (see {@link NatsKvBucketProvisioner#provision})
	 * @param scanView the same bucket for scans (see {@link NatsKvBucketProvisioner#scanView})
	 * @param rules the claim rules, put on the bucket's server clock here
	 */
	public NatsKvIdempotencyStore(KeyValue bucket, KeyValue scanView, ClaimRules rules) {
		this(bucket, scanView, rules, DEFAULT_MAX_PAYLOAD);
	}

	/**
	 * Creates the store on an existing bucket.
	 * @param bucket the bucket (see {@link NatsKvBucketProvisioner#provision})
	 * @param scanView the same bucket for scans (see {@link NatsKvBucketProvisioner#scanView})
	 * @param rules the claim rules, put on the bucket's server clock here
	 * @param maxPayload the server's {@code max_payload}, which bounds a record with its headers
	 */
	public NatsKvIdempotencyStore(KeyValue bucket, KeyValue scanView, ClaimRules rules, long maxPayload) {
		super(rules.onServerClock(new NatsKvServerTime(bucket)));
		this.bucket = bucket;
		this.scanView = scanView;
		this.maxRecordBytes = maxPayload - HEADER_ROOM;
		this.journalValues = new NatsKvJournalValues(bucket);
		this.journal = new SealedJournal(this.journalValues, (int) this.maxRecordBytes);
	}

	@Override
	protected ClaimResult claim(String key, String owner, Duration lease, String token) {
		String storeKey = this.keyEncoder.encode(key);
		ClaimDecision fresh = this.rules.claim(null, key, owner, lease, token);
		if (write(storeKey, null, fresh.toWrite(), List.of(), false)) {
			return fresh.result();
		}
		for (int round = 0; round < MAX_CAS_ROUNDS; round++) {
			KeyValueEntry entry = read(storeKey);
			Held current = decode(entry, false);
			ClaimDecision decision = this.rules.claim(recordOf(current), key, owner, lease, token);
			if (current != null && !current.journaled().stored().isPlain() && decision.needsWholeJournal()) {
				// an attempt that takes the task over resumes its whole journal (where it was included)
				current = decode(entry, true);
				decision = this.rules.claim(recordOf(current), key, owner, lease, token);
			}
			if (!decision.requiresWrite()
					|| write(storeKey, current, decision.toWrite(), List.of(), decision.keepsJournal())) {
				return decision.result();
			}
		}
		throw new StoreUnavailableException("Claim on key '" + key + "' kept losing compare-and-set races", null);
	}

	@Override
	public String name() {
		return "nats-kv";
	}

	/**
	 * Reads the latest value of every key with one watch over the bucket (no per-key requests),
	 * handing each record to {@code action} as it arrives: memory does not grow with the bucket. The
	 * watch is created through the scan view, whose requests may take {@link #SCAN_TIMEOUT}: the
	 * server takes seconds to set up a watch over millions of keys.
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		Instant now = this.rules.now();
		try {
			new BucketScan(this.scanView, SCAN_TIMEOUT).run((entry) -> {
				if (NatsKvServerTime.isProbe(entry) || entry.getKey().indexOf('.') >= 0) {
					return;
				}
				IdempotencyRecord record = decode(entry, false).record();
				if (!this.rules.isExpired(record, now)) {
					action.accept(this.rules.onLocalClock(record));
				}
			});
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable("scan", ex);
		}
		catch (IOException | JetStreamApiException ex) {
			throw unavailable("scan", ex);
		}
	}

	@Override
	protected IdempotencyRecord readRecord(String key) {
		KeyValueEntry entry = read(this.keyEncoder.encode(key));
		try {
			return recordOf(decode(entry, true));
		}
		catch (JournalPartMissingException ex) {
			throw ex.about(recordOf(decode(entry, false)));
		}
	}

	/** The record with the part of its journal inside it: its sealed parts are not read. */
	@Override
	protected IdempotencyRecord readRecordWithoutJournal(String key) {
		return recordOf(decode(read(this.keyEncoder.encode(key)), false));
	}

	/**
	 * Journals a step with one update of the record, whose size stays bounded: past
	 * {@link SealedJournal#SEAL_BYTES} of entries they are sealed in values of their own first.
	 */
	@Override
	public void recordStep(Claim claim, StepRecord step) {
		recordSteps(claim, List.of(step));
	}

	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		transition(claim.key(), (current) -> this.rules.recordSteps(current, claim, steps), steps, false);
	}

	@Override
	protected IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			boolean keepsJournal) {
		return transition(key, change, List.of(), keepsJournal);
	}

	/**
	 * A transition; {@code steps} are the entries it journals, if it journals any, else
	 * {@code keepsJournal} says whether it keeps the journal as stored.
	 */
	private IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			List<StepRecord> steps,
			boolean keepsJournal) {
		String storeKey = this.keyEncoder.encode(key);
		IdempotencyRecord written = transitionFromRemembered(storeKey, change, steps, keepsJournal);
		if (written != null) {
			return written;
		}
		for (int round = 0; round < MAX_CAS_ROUNDS; round++) {
			Held current = decode(read(storeKey), false);
			IdempotencyRecord next;
			try {
				next = change.apply(recordOf(current));
			}
			catch (ClaimLostException ex) {
				this.heldByThisInstance.remove(storeKey);
				throw ex;
			}
			if (write(storeKey, current, next, steps, keepsJournal)) {
				return next;
			}
		}
		throw new StoreUnavailableException("Update of key '" + key + "' kept losing compare-and-set races", null);
	}

	private KeyValueEntry read(String storeKey) {
		try {
			KeyValueEntry entry = this.bucket.get(storeKey);
			return (entry != null && entry.getOperation() == KeyValueOperation.PUT) ? entry : null;
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw unavailable("read", ex);
		}
	}

	/**
	 * The record a bucket entry holds, with its whole journal when {@code wholeJournal} (its sealed
	 * parts read), else with the part the record keeps; {@code null} for no entry.
	 */
	private Held decode(KeyValueEntry entry, boolean wholeJournal) {
		if (entry == null) {
			return null;
		}
		SealedJournal.Detached detached = this.journal.decode(entry.getValue());
		IdempotencyRecord inside = detached.record();
		IdempotencyRecord record = (wholeJournal && !detached.stored().isPlain())
				? inside.withJournal(this.journal.resolve(entry.getKey(), detached.stored(), inside.journal())) : inside;
		return new Held(record, this.journal.appendable(detached.stored(), inside.journal()), entry.getRevision());
	}

	private static IdempotencyRecord recordOf(Held held) {
		return (held != null) ? held.record() : null;
	}

	/**
	 * Applies a transition to the record this instance wrote last for the key, with one update
	 * against its revision; {@code null} when nothing is remembered or someone wrote since.
	 */
	private IdempotencyRecord transitionFromRemembered(String storeKey, UnaryOperator<IdempotencyRecord> change,
			List<StepRecord> steps, boolean keepsJournal) {
		Held remembered = this.heldByThisInstance.get(storeKey);
		if (remembered == null) {
			return null;
		}
		try {
			IdempotencyRecord next = change.apply(remembered.record());
			if (write(storeKey, remembered, next, steps, keepsJournal)) {
				return next;
			}
		}
		catch (ClaimLostException ex) {
			// decided again below, on what the bucket holds
		}
		this.heldByThisInstance.remove(storeKey);
		return null;
	}

	/**
	 * Writes {@code next} if the key still holds {@code current} ({@code null}: does not exist);
	 * false when someone wrote first. Remembers what it wrote while the claim is in progress.
	 * @param steps the entries {@code next} journals, maybe none: they go into the record's tail,
	 * which is sealed first when it grew too large
	 * @param keepsJournal without steps: whether {@code next} keeps the journal of {@code current}
	 * as it is stored (its sealed parts and tail), else its journal is written whole into the record
	 * @throws RecordTooLargeException when the record would not fit in one message
	 */
	private boolean write(String storeKey, Held current, IdempotencyRecord next, List<StepRecord> steps,
			boolean keepsJournal) {
		SealedJournal.Appended journaled;
		if (!steps.isEmpty()) {
			journaled = this.journal.appendAll(storeKey, current.journaled(), steps, next.token(),
					() -> UUID.randomUUID().toString());
		}
		else if (current != null && keepsJournal) {
			journaled = current.journaled();
		}
		else {
			journaled = this.journal.appendable(SealedJournal.Stored.PLAIN, next.journal());
		}
		SealedJournal.Stored stored = journaled.stored();
		StepJournal tail = journaled.tail();
		byte[] value = this.journal.encode(next.withJournal(tail), stored);
		if (value.length > this.maxRecordBytes) {
			throw new RecordTooLargeException(next.key(), value.length, this.maxRecordBytes);
		}
		if (next.state() == RecordState.WAITING && !stored.isPlain()) {
			this.journalValues.renew(SealedJournal.prefix(storeKey));
		}
		try {
			long written = (current == null) ? this.bucket.create(storeKey, value)
					: this.bucket.update(storeKey, value, current.revision());
			if (next.state() == RecordState.IN_PROGRESS) {
				this.heldByThisInstance.put(storeKey, new Held(next.withJournal(tail), journaled, written));
			}
			else {
				this.heldByThisInstance.remove(storeKey);
			}
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == WRONG_LAST_SEQUENCE || ex.getApiErrorCode() == KEY_EXISTS_REPLICATED) {
				return false;
			}
			throw unavailable("write", ex);
		}
		catch (IOException | RuntimeException ex) {
			throw unavailable("write", ex);
		}
	}

	/**
	 * A record as the bucket holds it at a revision: the record (with its whole journal, or the part
	 * inside), and how its journal is stored, with the part inside it (the tail).
	 */
	private record Held(IdempotencyRecord record, SealedJournal.Appended journaled, long revision) {
	}

	private StoreUnavailableException unavailable(String operation, Exception ex) {
		return new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName() + "' " + operation
				+ " failed: " + ex.getMessage(), ex);
	}

}
