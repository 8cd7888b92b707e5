package dev.exactlyonce.store;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads and writes {@link IdempotencyRecord}s as JSON for stores that keep opaque values.
 * Uses a private mapper so the application's JSON settings can never change the stored format.
 */
public final class RecordCodec {

	private final JsonMapper mapper = JsonMapper.builder().build();

	/**
	 * Serialises a record.
	 * @param record the record
	 * @return its JSON bytes
	 */
	public byte[] encode(IdempotencyRecord record) {
		return this.mapper.writeValueAsBytes(record);
	}

	/**
	 * Deserialises a record.
	 * @param bytes JSON bytes written by {@link #encode}
	 * @return the record
	 * @throws StoreUnavailableException when the bytes are not a record (a corrupted store)
	 */
	public IdempotencyRecord decode(byte[] bytes) {
		try {
			return this.mapper.readValue(bytes, IdempotencyRecord.class);
		}
		catch (JacksonException ex) {
			throw new StoreUnavailableException("Idempotency record is not readable: " + ex.getOriginalMessage(), ex);
		}
	}

}
