package dev.exactlyonce.provision;

/** Stream discard policy. */
public enum Discard {

	/** Discard the oldest messages. */
	OLD,

	/** Refuse new messages. */
	NEW

}
