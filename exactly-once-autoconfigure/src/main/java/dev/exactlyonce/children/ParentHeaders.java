package dev.exactlyonce.children;

import java.util.Map;

import io.nats.client.impl.Headers;

import dev.exactlyonce.nats.HeaderEncoding;

/**
 * The headers that make a message a child task: its parent (consumer, key without namespace, run)
 * and its name in the parent's journal. Trusted like the message's other headers: a publisher that
 * can publish tasks can name any parent, and so reach that parent's child waits only.
 *
 * @param consumer the parent's consumer
 * @param key the parent's key, without namespace
 * @param run the parent's run that started the child
 * @param childName the child's name in the parent's journal
 */
record ParentHeaders(String consumer, String key, int run, String childName) {

	static final String CONSUMER = "Exactly-Once-Parent-Consumer";

	static final String KEY = "Exactly-Once-Parent-Key";

	static final String RUN = "Exactly-Once-Parent-Run";

	static final String CHILD_NAME = "Exactly-Once-Child-Name";

	/** Adds these headers to a child's headers. */
	void writeTo(Map<String, String> headers) {
		headers.put(CONSUMER, this.consumer);
		headers.put(KEY, this.key);
		headers.put(RUN, Integer.toString(this.run));
		headers.put(CHILD_NAME, this.childName);
	}

	/** The decision the parent awaits this child's result under. */
	String resultWaitName() {
		return this.childName + ".result";
	}

	/**
	 * Reads the parent of a message.
	 * @return the parent, or {@code null} when the message names none (or not completely)
	 */
	static ParentHeaders readFrom(Headers headers) {
		if (headers == null) {
			return null;
		}
		String consumer = HeaderEncoding.first(headers, CONSUMER);
		String key = HeaderEncoding.first(headers, KEY);
		String run = HeaderEncoding.first(headers, RUN);
		String name = HeaderEncoding.first(headers, CHILD_NAME);
		if (consumer == null || key == null || run == null || name == null) {
			return null;
		}
		try {
			return new ParentHeaders(consumer, key, Integer.parseInt(run), name);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return "task '" + this.key + "' of consumer '" + this.consumer + "' (run " + this.run + ", child '"
				+ this.childName + "')";
	}

}
