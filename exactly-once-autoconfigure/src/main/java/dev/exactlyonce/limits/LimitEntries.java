package dev.exactlyonce.limits;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.limits.spi.LimitQueueFullException;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The limits' KV bucket: one entry per key of a limit, {@code <limit>.<SHA-256 of the key>}, holding its
 * {@link LimitState} as JSON, created with {@code create} and rewritten with {@code update} on the
 * revision it was read at, so two instances never both take the last slot.
 */
final class LimitEntries {

	private static final int WRONG_LAST_SEQUENCE = 10071;

	/** What a replicated bucket may answer instead of 10071 when a created key exists (nats.go #2097). */
	private static final int KEY_EXISTS_REPLICATED = 10164;

	/** The most entries of one limit a usage read looks at. */
	static final int MOST_KEYS_READ = 1000;

	/** What a KV put's message takes beyond its value, kept free of {@code max_payload}. */
	static final int HEADROOM = 512;

	/**
	 * What an arrival leaves free in a key's entry for the tasks already queued: a holder replacing a
	 * waiter (a token of 36 characters), a start of the rate window, a waiter's and the holders' deadlines
	 * written to the nanosecond.
	 */
	static final int ROOM_KEPT = 1024;

	private final KeyValue bucket;

	private final long maxValueBytes;

	private final JsonMapper mapper = JsonMapper.builder().build();

	/**
	 * Opens the entries.
	 * @param bucket the limits' bucket
	 * @param maxPayload the NATS server's {@code max_payload}: an arrival that leaves too little room is not queued
	 */
	LimitEntries(KeyValue bucket, long maxPayload) {
		this.bucket = bucket;
		this.maxValueBytes = maxPayload - HEADROOM;
	}

	/**
	 * Reads a key's state.
	 * @throws StoreUnavailableException when NATS did not answer or the entry is unreadable
	 */
	Read read(String limit, String key) {
		Read read = readEntry(limit, entryKey(limit, key));
		return new Read(read.entryKey(), read.state().of(key), read.revision());
	}

	private Read readEntry(String limit, String entryKey) {
		try {
			KeyValueEntry entry = this.bucket.get(entryKey);
			if (entry == null || entry.getValue() == null) {
				return new Read(entryKey, LimitState.empty(), 0);
			}
			LimitState state = this.mapper.readValue(new String(entry.getValue(), StandardCharsets.UTF_8), LimitState.class);
			return new Read(entryKey, state.mutable(), entry.getRevision());
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new StoreUnavailableException("The state of limit '" + limit + "' (entry '" + entryKey
					+ "' of its KV bucket) was not read: " + ex.getMessage(), ex);
		}
	}

	/**
	 * What the tasks arriving at a key may still add to its entry: the entry must keep {@value #ROOM_KEPT}
	 * bytes free under {@code max_payload} less {@value #HEADROOM}, room for what the tasks already queued
	 * may still add (a holder and a start of the rate window replacing a waiter, deadlines written to the
	 * nanosecond), so a start, a look again or a give-back is never refused.
	 * @param read the entry as read
	 * @param state its state, before the batch's changes
	 * @param limit the limit, for the refusal
	 */
	Room room(Read read, LimitState state, LimitDefinition limit) {
		return new Room(read.entryKey(), limit, this.maxValueBytes - ROOM_KEPT, bytes(state));
	}

	private long bytes(Object value) {
		return this.mapper.writeValueAsString(value).getBytes(StandardCharsets.UTF_8).length;
	}

	/**
	 * Writes a key's state if nobody wrote it since it was read: a start, a look again, a give-back, which
	 * {@link Room} kept room for, and the arrivals it admitted.
	 * @return {@code false} when somebody did: read again
	 * @throws StoreUnavailableException when NATS did not answer (the write may have been made)
	 */
	boolean write(Read read, LimitState state) {
		return put(read, this.mapper.writeValueAsString(state).getBytes(StandardCharsets.UTF_8));
	}

	private boolean put(Read read, byte[] value) {
		try {
			if (read.revision() == 0) {
				this.bucket.create(read.entryKey(), value);
			}
			else {
				this.bucket.update(read.entryKey(), value, read.revision());
			}
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == WRONG_LAST_SEQUENCE || ex.getApiErrorCode() == KEY_EXISTS_REPLICATED) {
				return false;
			}
			throw unwritten(read, ex);
		}
		catch (IOException | RuntimeException ex) {
			throw unwritten(read, ex);
		}
	}

	private static StoreUnavailableException unwritten(Read read, Exception ex) {
		return new StoreUnavailableException("Entry '" + read.entryKey() + "' of the limits' KV bucket was not "
				+ "written: " + ex.getMessage(), ex);
	}

	/**
	 * Sums the holders and waiters of a limit's keys and finds its busiest keys.
	 * @param limit the limit
	 * @param now the server's time, when the usage is read
	 * @throws StoreUnavailableException when NATS did not answer
	 */
	LimitUsage usage(LimitDefinition limit, Instant now) {
		List<String> keys;
		try {
			keys = this.bucket.keys(limit.name() + ".>");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StoreUnavailableException("Reading the keys of " + limit.describe() + " was interrupted", ex);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new StoreUnavailableException("The keys of " + limit.describe() + " were not read from the limits' "
					+ "KV bucket: " + ex.getMessage(), ex);
		}
		int holders = 0;
		int waiting = 0;
		int started = 0;
		Instant oldest = null;
		List<LimitUsage.KeyUsage> used = new ArrayList<>();
		for (String entryKey : keys.subList(0, Math.min(keys.size(), MOST_KEYS_READ))) {
			LimitState state = readEntry(limit.name(), entryKey).state();
			state.forgetPast(limit, now);
			holders += state.holders().size();
			waiting += state.queue().size();
			started += state.starts().size();
			Instant since = state.oldestWaitingSince();
			oldest = (since != null && (oldest == null || since.isBefore(oldest))) ? since : oldest;
			if (!state.holders().isEmpty() || !state.queue().isEmpty() || !state.starts().isEmpty()) {
				used.add(new LimitUsage.KeyUsage(state.key(), entryKey, state.holders().size(), state.queue().size(),
						state.starts().size(), since));
			}
		}
		used.sort(Comparator.comparingInt(LimitUsage.KeyUsage::waiting)
			.thenComparingInt(LimitUsage.KeyUsage::holders)
			.thenComparingInt(LimitUsage.KeyUsage::started)
			.reversed());
		return new LimitUsage(limit, keys.size(), holders, waiting, started, oldest,
				List.copyOf(used.subList(0, Math.min(used.size(), LimitUsage.BUSIEST_KEYS))), now);
	}

	/** The entry of a limit's key: a digest, so any key makes a valid, fixed-length KV key. */
	static String entryKey(String limit, String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return limit + "." + HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

	/**
	 * The size of a key's entry as a batch of changes grows it: an arrival is admitted while the entry
	 * with it stays within the most an arrival may leave; the starts count, and are never refused.
	 */
	final class Room {

		private final String entryKey;

		private final LimitDefinition limit;

		private final long most;

		private long bytes;

		private Room(String entryKey, LimitDefinition limit, long most, long bytes) {
			this.entryKey = entryKey;
			this.limit = limit;
			this.most = most;
			this.bytes = bytes;
		}

		/**
		 * Admits a task joining the queue.
		 * @param state the key's state, before the task joins it
		 * @param waiter the task's place
		 * @param task the task, for the refusal
		 * @throws LimitQueueFullException when the entry would be larger than an arrival may leave it: the
		 * task is not queued
		 */
		void admit(LimitState state, LimitState.Waiter waiter, String task) {
			long added = bytes(waiter) + 1;
			if (this.bytes + added > this.most) {
				throw new LimitQueueFullException(this.limit.describe() + ": the task at " + task + " was not queued: "
						+ "with it, key entry '" + this.entryKey + "' of the limits' KV bucket would be "
						+ (this.bytes + added) + " bytes (" + (state.queue().size() + 1) + " tasks queued, "
						+ state.holders().size() + " holders, " + state.starts().size() + " starts in the rate "
						+ "window), above the " + this.most + " bytes an arrival may leave: the NATS server's "
						+ "max_payload less " + (HEADROOM + ROOM_KEPT) + " bytes (kept for the KV put and the starts "
						+ "of the tasks already queued). Fix: lower exactlyonce.limits." + this.limit.name()
						+ ".max-waiting (or publish at the pace the limit allows), raise the server's max_payload, "
						+ "or use shorter task keys");
			}
			this.bytes += added;
		}

		/**
		 * Counts a task that starts: a holder and a start of the rate window.
		 * @param holder its slot, or {@code null} under a rate only
		 * @param start its start, or {@code null} under a concurrency only
		 */
		void started(LimitState.Holder holder, Instant start) {
			this.bytes += ((holder != null) ? bytes(holder) + 1 : 0) + ((start != null) ? bytes(start) + 1 : 0);
		}

	}

	/**
	 * A key's state as read.
	 * @param entryKey its KV key
	 * @param state its state, to change and write back
	 * @param revision the revision it was read at, 0 when the entry does not exist
	 */
	record Read(String entryKey, LimitState state, long revision) {
	}

}
