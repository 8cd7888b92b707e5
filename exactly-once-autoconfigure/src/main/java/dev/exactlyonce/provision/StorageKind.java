package dev.exactlyonce.provision;

/** Storage of a stream or bucket. */
public enum StorageKind {

	/** Persisted to disk. */
	FILE,

	/** Kept in memory only. */
	MEMORY

}
