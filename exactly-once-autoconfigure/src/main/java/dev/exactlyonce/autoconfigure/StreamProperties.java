package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.exactlyonce.provision.Discard;
import dev.exactlyonce.provision.Retention;
import dev.exactlyonce.provision.StorageKind;
import dev.exactlyonce.provision.StreamDeclaration;

/**
 * Settings of one stream, bound from {@code exactlyonce.streams.<name>.*}.
 */
public class StreamProperties {

	/** Subjects the stream captures. */
	private List<String> subjects = new ArrayList<>();

	/** Retention policy. */
	private Retention retention = Retention.LIMITS;

	/** Storage of the stream's messages. */
	private StorageKind storage = StorageKind.FILE;

	/** Maximum age of a message; unlimited when unset. */
	private Duration maxAge;

	/** Window in which a repeated Nats-Msg-Id is recognised as a duplicate. */
	private Duration duplicateWindow = Duration.ofHours(1);

	/** Number of stream replicas. */
	private int replicas = 1;

	/** Maximum messages kept per subject; unlimited when unset. */
	private Long maxMsgsPerSubject;

	/** Maximum number of messages; unlimited when unset. */
	private Long maxMsgs;

	/** Maximum total size in bytes; unlimited when unset. */
	private Long maxBytes;

	/** What the stream discards when a limit is reached. */
	private Discard discard = Discard.OLD;

	/** With discard new, apply the per-subject limit to new messages too. */
	private boolean discardNewPerSubject;

	public List<String> getSubjects() {
		return this.subjects;
	}

	public void setSubjects(List<String> subjects) {
		this.subjects = subjects;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public void setRetention(Retention retention) {
		this.retention = retention;
	}

	public StorageKind getStorage() {
		return this.storage;
	}

	public void setStorage(StorageKind storage) {
		this.storage = storage;
	}

	public Duration getMaxAge() {
		return this.maxAge;
	}

	public void setMaxAge(Duration maxAge) {
		this.maxAge = maxAge;
	}

	public Duration getDuplicateWindow() {
		return this.duplicateWindow;
	}

	public void setDuplicateWindow(Duration duplicateWindow) {
		this.duplicateWindow = duplicateWindow;
	}

	public int getReplicas() {
		return this.replicas;
	}

	public void setReplicas(int replicas) {
		this.replicas = replicas;
	}

	public Long getMaxMsgsPerSubject() {
		return this.maxMsgsPerSubject;
	}

	public void setMaxMsgsPerSubject(Long maxMsgsPerSubject) {
		this.maxMsgsPerSubject = maxMsgsPerSubject;
	}

	public Long getMaxMsgs() {
		return this.maxMsgs;
	}

	public void setMaxMsgs(Long maxMsgs) {
		this.maxMsgs = maxMsgs;
	}

	public Long getMaxBytes() {
		return this.maxBytes;
	}

	public void setMaxBytes(Long maxBytes) {
		this.maxBytes = maxBytes;
	}

	public Discard getDiscard() {
		return this.discard;
	}

	public void setDiscard(Discard discard) {
		this.discard = discard;
	}

	public boolean isDiscardNewPerSubject() {
		return this.discardNewPerSubject;
	}

	public void setDiscardNewPerSubject(boolean discardNewPerSubject) {
		this.discardNewPerSubject = discardNewPerSubject;
	}

	/**
	 * The stream these settings declare.
	 * @param name the stream name
	 * @return the declaration
	 */
	public StreamDeclaration toDeclaration(String name) {
		return new StreamDeclaration(name, this.subjects, this.retention, this.storage, this.maxAge,
				this.duplicateWindow, this.replicas, this.maxMsgsPerSubject, this.maxMsgs, this.maxBytes, this.discard,
				this.discardNewPerSubject);
	}

}
