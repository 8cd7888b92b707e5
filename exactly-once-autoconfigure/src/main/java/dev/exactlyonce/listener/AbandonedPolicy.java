package dev.exactlyonce.listener;

/** What to do with a claim whose previous holder died before completing. */
public enum AbandonedPolicy {

	/** Run the handler again; it sees the previous attempt in its context. */
	RETRY,

	/** Do not run it again; park the message for a person. */
	DEAD_LETTER

}
