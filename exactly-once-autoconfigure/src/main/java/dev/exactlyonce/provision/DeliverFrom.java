package dev.exactlyonce.provision;

/** Where a new consumer starts. */
public enum DeliverFrom {

	/** From the first message in the stream. */
	ALL,

	/** From messages published after the consumer was created. */
	NEW,

	/** From the last message in the stream. */
	LAST,

	/** From the last message of each subject. */
	LAST_PER_SUBJECT

}
