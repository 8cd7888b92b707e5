package dev.exactlyonce.provision;

import java.time.Duration;
import java.util.List;

/**
 * A stream as the application declares it.
 *
 * @param name the stream name
 * @param subjects the subjects the stream captures
 * @param retention the retention policy
 * @param storage where the stream keeps its messages
 * @param maxAge the maximum age of a message, or {@code null} for unlimited
 * @param duplicateWindow the window in which a repeated {@code Nats-Msg-Id} is a duplicate
 * @param replicas the number of replicas
 * @param maxMsgsPerSubject the most messages kept per subject, or {@code null} for unlimited
 * @param maxMsgs the most messages kept, or {@code null} for unlimited
 * @param maxBytes the most bytes kept, or {@code null} for unlimited
 * @param discard what the stream discards when a limit is reached
 * @param discardNewPerSubject with {@link Discard#NEW}, whether the per-subject limit refuses new
 * messages too
 */
public record StreamDeclaration(String name, List<String> subjects, Retention retention, StorageKind storage,
		Duration maxAge, Duration duplicateWindow, int replicas, Long maxMsgsPerSubject, Long maxMsgs, Long maxBytes,
		Discard discard, boolean discardNewPerSubject) {

	public StreamDeclaration {
		subjects = (subjects != null) ? List.copyOf(subjects) : List.of();
	}

}
