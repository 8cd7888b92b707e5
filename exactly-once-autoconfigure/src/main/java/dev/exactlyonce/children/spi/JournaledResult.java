package dev.exactlyonce.children.spi;

/**
 * The result an earlier attempt of a child's run journaled, to report again without running the
 * handler: {@link #value()} is what the handler returns for the pipeline (read back as its return
 * type), {@link #summarized()} what its completion record summarizes.
 *
 * @param value the result read back as the handler's return type, or {@code null} when the handler
 * returned nothing or its JSON cannot be read back as that type
 * @param json the journaled JSON text
 */
public record JournaledResult(Object value, String json) {

	/**
	 * What the completion record's summary is taken from: the value, or the JSON text when it could
	 * not be read back.
	 * @return the value, the JSON text, or {@code null} for a handler that returned nothing
	 */
	public Object summarized() {
		return (this.value != null || "null".equals(this.json)) ? this.value : this.json;
	}

}
