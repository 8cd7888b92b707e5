package dev.exactlyonce.store;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A task's step journal as a store keeps it that has no cheap partial update of a record (NATS KV, a
 * Firestore document), so that a step costs the same at step 10,000 as at step 1 and a result may
 * be larger than one value.
 * <p>
 * The record holds the latest entries (the <em>tail</em>, one entry per step name, as the journal
 * of earlier versions did) and references to <em>sealed</em> parts: once the tail grows past
 * {@value #SEAL_BYTES} bytes of JSON it is written to values of its own ({@link JournalValues},
 * split into chunks that fit one value), and the record names them instead. Past
 * {@value #MAX_SEALED_IN_RECORD} references the record's references go into an <em>index</em> value
 * that names the index before it, so the record stays small however long the task runs.
 * <p>
 * Fencing is the record's: a sealed value is written before (or in the same transaction as) the
 * compare-and-set of the record that names it, under a name no other write uses (the writing
 * claim's token and a name unique to the write), so a zombie's or a lost race's value is named by
 * no record and is never read as part of the journal; it expires with the store's TTL. A reader
 * gets every sealed value of a key with one request, not a request per part.
 * <p>
 * A record without sealed parts is written exactly as earlier versions wrote it (its journal a JSON
 * array), so they keep reading it during a rolling upgrade; a record with sealed parts has a JSON
 * object there, which they refuse as unreadable instead of resuming the task without its sealed steps.
 */
public final class SealedJournal {

	/** Tail size, in bytes of JSON, past which the tail is sealed. */
	public static final int SEAL_BYTES = 8 * 1024;

	/** References a record holds before they go into an index value. */
	public static final int MAX_SEALED_IN_RECORD = 32;

	private static final String JOURNAL_FIELD = "journal";

	private final JsonMapper mapper = RecordCodec.mapper();

	private final RecordCodec codec = new RecordCodec();

	private final JournalValues values;

	private final int maxValueBytes;

	/**
	 * Creates the journal format of a store.
	 * @param values where sealed parts are kept
	 * @param maxValueBytes the largest value one write may hold (a chunk)
	 */
	public SealedJournal(JournalValues values, int maxValueBytes) {
		this.values = values;
		this.maxValueBytes = maxValueBytes;
	}

	/**
	 * Reads a record kept as one JSON value (NATS KV).
	 * @param value the value
	 * @return the record with the journal it holds inside (the tail), and how the rest is stored
	 * @throws StoreUnavailableException when the value is not a record
	 */
	public Detached decode(byte[] value) {
		try {
			JsonNode tree = this.mapper.readTree(value);
			if (!(tree instanceof ObjectNode record)) {
				throw new StoreUnavailableException("Idempotency record is not readable: not a JSON object", null);
			}
			Stored stored = detach(record);
			return new Detached(this.mapper.treeToValue(record, IdempotencyRecord.class), stored);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Idempotency record is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Writes a record as one JSON value (NATS KV): as earlier versions wrote it while its journal
	 * has no sealed part.
	 * @param record the record with the journal it holds inside (the tail)
	 * @param stored how the rest of the journal is stored
	 * @return the value
	 */
	public byte[] encode(IdempotencyRecord record, Stored stored) {
		if (stored.isPlain()) {
			return this.codec.encode(record);
		}
		ObjectNode tree = this.mapper.valueToTree(record);
		attach(tree, stored);
		return this.mapper.writeValueAsBytes(tree);
	}

	/**
	 * Reads a journal kept as one JSON text field of its own (Firestore).
	 * @param json the field: a JSON array (no sealed part) or the object {@link #encodeField} writes;
	 * {@code null} for none
	 * @return the stored form and tail
	 * @throws StoreUnavailableException when the text is not a journal
	 */
	public Appended decodeField(String json) {
		if (json == null) {
			return new Appended(Stored.PLAIN, StepJournal.EMPTY, 0);
		}
		try {
			JsonNode field = this.mapper.readTree(json);
			if (!field.isObject()) {
				return new Appended(Stored.PLAIN, this.mapper.treeToValue(field, StepJournal.class), json.length());
			}
			StoredForm form = this.mapper.treeToValue(field, StoredForm.class);
			StepJournal tail = (form.tail() != null) ? this.mapper.treeToValue(form.tail(), StepJournal.class)
					: StepJournal.EMPTY;
			return appendable(new Stored(form.previous(), (form.sealed() != null) ? form.sealed() : List.of()), tail);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Step journal is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Writes a journal as one JSON text field of its own (Firestore): a JSON array, as earlier
	 * versions wrote it, while it has no sealed part.
	 * @param journal the stored form and tail
	 * @return the field
	 */
	public String encodeField(Appended journal) {
		if (journal.stored().isPlain()) {
			return this.mapper.writeValueAsString(journal.tail());
		}
		return this.mapper.writeValueAsString(new StoredForm(journal.stored().previous(), journal.stored().sealed(),
				this.mapper.valueToTree(journal.tail())));
	}

	/** How a record's JSON stores its journal; its journal field left holding the tail. */
	private Stored detach(ObjectNode record) {
		JsonNode journal = record.get(JOURNAL_FIELD);
		if (journal == null || !journal.isObject()) {
			return Stored.PLAIN;
		}
		try {
			StoredForm form = this.mapper.treeToValue(journal, StoredForm.class);
			record.set(JOURNAL_FIELD, journal.get("tail"));
			return new Stored(form.previous(), (form.sealed() != null) ? form.sealed() : List.of());
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Step journal is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/** Puts the references next to the tail in a record's JSON. */
	private void attach(ObjectNode record, Stored stored) {
		ObjectNode form = this.mapper.createObjectNode();
		form.set("previous", this.mapper.valueToTree(stored.previous()));
		form.set("sealed", this.mapper.valueToTree(stored.sealed()));
		form.set("tail", record.get(JOURNAL_FIELD));
		record.set(JOURNAL_FIELD, form);
	}

	/**
	 * The whole journal: the sealed parts, oldest first, then the tail; a later entry of a step
	 * replaces the earlier one where that one was.
	 * @param storeKey the record's key in the bucket
	 * @param stored how the journal is stored
	 * @param tail the record's tail
	 * @return the journal
	 * @throws JournalPartMissingException when the store no longer holds a sealed part
	 * @throws StoreUnavailableException when a sealed part cannot be read
	 */
	public StepJournal resolve(String storeKey, Stored stored, StepJournal tail) {
		if (stored.isPlain()) {
			return tail;
		}
		Map<String, byte[]> found = this.values.readAll(prefix(storeKey));
		Deque<List<Ref>> parts = new ArrayDeque<>();
		parts.push(stored.sealed());
		for (Ref index = stored.previous(); index != null;) {
			StoredForm older = read(storeKey, index, found, StoredForm.class);
			parts.push((older.sealed() != null) ? older.sealed() : List.of());
			index = older.previous();
		}
		Map<String, StepRecord> entries = new LinkedHashMap<>();
		for (List<Ref> refs : parts) {
			for (Ref ref : refs) {
				for (StepRecord step : read(storeKey, ref, found, StepRecord[].class)) {
					entries.put(step.name(), step);
				}
			}
		}
		tail.steps().forEach((step) -> entries.put(step.name(), step));
		return new StepJournal(new ArrayList<>(entries.values()));
	}

	/**
	 * The stored form after a step's entry was journaled: in the tail (replacing the entry of the
	 * same name, whose size no longer counts), and the tail sealed (its values written) when it grew
	 * past {@value #SEAL_BYTES} bytes.
	 * @param storeKey the record's key in the bucket
	 * @param before the stored form and tail before
	 * @param step the entry
	 * @param writer the fencing token of the claim journaling it
	 * @param write a name of this write that no other write of the claim uses (the revision its
	 * compare-and-set expects, or a random one), asked for only when the tail is sealed
	 * @return the stored form and tail to write with the record
	 */
	public Appended append(String storeKey, Appended before, StepRecord step, String writer, Supplier<String> write) {
		StepJournal grown = before.tail().with(step);
		int tailBytes = (before.tailBytes() >= 0) ? before.tailBytes() : RecordJson.journal(before.tail()).length;
		int replacedBytes = before.tail().find(step.name()).map((replaced) -> RecordJson.step(replaced).length).orElse(0);
		int grownBytes = tailBytes - replacedBytes + RecordJson.step(step).length;
		if (grownBytes <= SEAL_BYTES) {
			return new Appended(before.stored(), grown, grownBytes);
		}
		String name = writer + "." + write.get();
		List<Ref> sealed = new ArrayList<>(before.stored().sealed());
		sealed.add(write(storeKey, name + ".s", this.mapper.writeValueAsBytes(grown)));
		Ref previous = before.stored().previous();
		if (sealed.size() > MAX_SEALED_IN_RECORD) {
			previous = write(storeKey, name + ".i", this.mapper.writeValueAsBytes(new StoredForm(previous, sealed, null)));
			sealed = List.of();
		}
		return new Appended(new Stored(previous, sealed), StepJournal.EMPTY, 0);
	}

	/**
	 * The stored form after several entries were journaled in order, each as {@link #append} does.
	 * @param storeKey the record's key in the bucket
	 * @param before the stored form and tail before
	 * @param steps the entries, in order
	 * @param writer the fencing token of the claim journaling them
	 * @param write a name of one write, asked for each time the tail is sealed
	 * @return the stored form and tail to write with the record
	 */
	public Appended appendAll(String storeKey, Appended before, List<StepRecord> steps, String writer,
			Supplier<String> write) {
		Appended appended = before;
		for (StepRecord step : steps) {
			appended = append(storeKey, appended, step, writer, write);
		}
		return appended;
	}

	/**
	 * A record's stored form and tail, as {@link #append} takes them; the tail's size is measured
	 * only when a step is appended (reads, duplicates' answers and renewals never need it).
	 * @param stored how the journal is stored
	 * @param tail the tail
	 * @return them
	 */
	public Appended appendable(Stored stored, StepJournal tail) {
		return new Appended(stored, tail, tail.isEmpty() ? 0 : -1);
	}

	private Ref write(String storeKey, String name, byte[] json) {
		int chunks = Math.max(1, (json.length + this.maxValueBytes - 1) / this.maxValueBytes);
		for (int chunk = 0; chunk < chunks; chunk++) {
			int from = chunk * this.maxValueBytes;
			byte[] part = Arrays.copyOfRange(json, from, Math.min(json.length, from + this.maxValueBytes));
			this.values.put(prefix(storeKey) + name + "." + chunk, part);
		}
		return new Ref(name, chunks);
	}

	private <T> T read(String storeKey, Ref ref, Map<String, byte[]> found, Class<T> type) {
		ByteArrayOutputStream json = new ByteArrayOutputStream();
		for (int chunk = 0; chunk < ref.chunks(); chunk++) {
			byte[] part = found.get(prefix(storeKey) + ref.name() + "." + chunk);
			if (part == null) {
				throw new JournalPartMissingException("Step journal of store key '" + storeKey + "' names sealed part '"
						+ ref.name() + "' (chunk " + chunk + " of " + ref.chunks() + "), which the store no longer holds: "
						+ "it expired (exactlyonce.store.completed-ttl after it was written) or was deleted. The task "
						+ "cannot resume its journal: resubmit it to run it from the start (a dead-lettered one: discard "
						+ "it and publish it again under a new key)");
			}
			json.writeBytes(part);
		}
		try {
			return this.mapper.readValue(json.toByteArray(), type);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Sealed part '" + ref.name() + "' of the step journal of store key '"
					+ storeKey + "' is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * The prefix of the keys of a record's sealed parts.
	 * @param storeKey the record's key in the store (never holding a dot)
	 * @return the prefix, ending in a dot
	 */
	public static String prefix(String storeKey) {
		return storeKey + ".j.";
	}

	/**
	 * Where sealed parts are kept.
	 */
	public interface JournalValues {

		/**
		 * Writes a value.
		 * @param key its key
		 * @param value the value
		 * @throws StoreUnavailableException when the write failed
		 */
		void put(String key, byte[] value);

		/**
		 * Reads every value whose key starts with a prefix.
		 * @param prefix the prefix, ending in a dot
		 * @return the values by key
		 * @throws StoreUnavailableException when they could not be read
		 */
		Map<String, byte[]> readAll(String prefix);

	}

	/**
	 * A sealed part: the base of its values' keys and how many chunks it was split into.
	 *
	 * @param name the base, after the record's prefix
	 * @param chunks the number of chunks
	 */
	public record Ref(String name, int chunks) {
	}

	/**
	 * How a record keeps its journal besides the tail.
	 *
	 * @param previous the newest index value, or {@code null}
	 * @param sealed the sealed parts not yet in an index, oldest first
	 */
	public record Stored(Ref previous, List<Ref> sealed) {

		/** A journal kept entirely in the record, as earlier versions kept it. */
		public static final Stored PLAIN = new Stored(null, List.of());

		/**
		 * Whether the whole journal is in the record.
		 * @return {@code true} when nothing is sealed
		 */
		public boolean isPlain() {
			return this.previous == null && this.sealed.isEmpty();
		}

	}

	/**
	 * A record as the bucket holds it.
	 *
	 * @param record the record, with the journal it holds inside (the tail)
	 * @param stored how the rest of its journal is stored
	 */
	public record Detached(IdempotencyRecord record, Stored stored) {
	}

	/**
	 * A stored form and tail that entries are appended to.
	 *
	 * @param stored the references
	 * @param tail the tail
	 * @param tailBytes about the size of the tail as JSON (at least it), or -1 when not measured yet
	 */
	public record Appended(Stored stored, StepJournal tail, int tailBytes) {
	}

	/** The JSON of the references, in a record and in an index value. */
	record StoredForm(Ref previous, List<Ref> sealed, JsonNode tail) {
	}

}
