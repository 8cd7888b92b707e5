package dev.exactlyonce.store;

import java.nio.charset.StandardCharsets;
import java.util.List;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads and writes {@link IdempotencyRecord}s (and their {@link StepJournal}s) as JSON for stores that
 * keep opaque values.
 * Uses a private mapper so the application's JSON settings can never change the stored format; one
 * for every codec, so a store created later (another listener's, a test's) finds its readers and
 * writers built.
 */
public final class RecordCodec {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	/** The mapper of the stored formats, for the classes of this package that write parts of them. */
	static JsonMapper mapper() {
		return MAPPER;
	}

	/**
	 * Serialises a record.
	 * @param record the record
	 * @return its JSON bytes
	 */
	public byte[] encode(IdempotencyRecord record) {
		return RecordJson.record(record);
	}

	/**
	 * Deserialises a record.
	 * @param bytes JSON bytes written by {@link #encode}
	 * @return the record
	 * @throws StoreUnavailableException when the bytes are not a record (a corrupted store)
	 */
	public IdempotencyRecord decode(byte[] bytes) {
		try {
			return MAPPER.readValue(bytes, IdempotencyRecord.class);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Idempotency record is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Serialises a step journal, for stores that keep it in a field of their own.
	 * @param journal the journal
	 * @return a JSON array
	 */
	public String encodeJournal(StepJournal journal) {
		return new String(RecordJson.journal(journal), StandardCharsets.UTF_8);
	}

	/**
	 * Serialises one journal entry.
	 * @param step the entry
	 * @return a JSON object
	 */
	public String encodeStep(StepRecord step) {
		return new String(RecordJson.step(step), StandardCharsets.UTF_8);
	}

	/**
	 * Deserialises one journal entry.
	 * @param json a JSON object written by {@link #encodeStep}
	 * @return the entry
	 * @throws StoreUnavailableException when the text is not an entry (a corrupted store)
	 */
	public StepRecord decodeStep(String json) {
		try {
			return MAPPER.readValue(json, StepRecord.class);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Step journal entry is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Deserialises a step journal.
	 * @param json a JSON array written by {@link #encodeJournal} (or a store script), or
	 * {@code null} for none
	 * @return the journal, empty for {@code null}
	 * @throws StoreUnavailableException when the text is not a journal (a corrupted store)
	 */
	public StepJournal decodeJournal(String json) {
		if (json == null) {
			return StepJournal.EMPTY;
		}
		try {
			return MAPPER.readValue(json, StepJournal.class);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Step journal is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Serialises an audit trail, for stores that keep it in a field of their own.
	 * @param audit the operators' actions
	 * @return a JSON array
	 */
	public String encodeAudit(List<OperatorAction> audit) {
		return MAPPER.writeValueAsString(audit);
	}

	/**
	 * Serialises one operator action.
	 * @param action the action
	 * @return a JSON object
	 */
	public String encodeAction(OperatorAction action) {
		return MAPPER.writeValueAsString(action);
	}

	/**
	 * Deserialises an audit trail.
	 * @param json a JSON array written by {@link #encodeAudit} (or a store script), or {@code null}
	 * for none
	 * @return the actions, empty for {@code null}
	 * @throws StoreUnavailableException when the text is not an audit trail (a corrupted store)
	 */
	public List<OperatorAction> decodeAudit(String json) {
		if (json == null) {
			return List.of();
		}
		try {
			return List.of(MAPPER.readValue(json, OperatorAction[].class));
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Operator audit is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

}
