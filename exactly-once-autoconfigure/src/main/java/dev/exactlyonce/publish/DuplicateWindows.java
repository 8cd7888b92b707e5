package dev.exactlyonce.publish;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;

/**
 * Knows the duplicate window of the stream behind each subject the publisher used. It learns a
 * subject's stream from a successful publish (the server is answering then) and reads that
 * stream's window once; it never asks the server while a publish is failing, because then the
 * server is what is missing. Until it knows, it answers the shortest window of the declared
 * streams.
 */
public class DuplicateWindows {

	private final JetStreamManagement management;

	private final Duration fallback;

	private final Map<String, String> streamBySubject = new ConcurrentHashMap<>();

	private final Map<String, Duration> windowByStream = new ConcurrentHashMap<>();

	/**
	 * Creates the lookup.
	 * @param management JetStream management
	 * @param fallback the window assumed for subjects not yet published successfully
	 */
	public DuplicateWindows(JetStreamManagement management, Duration fallback) {
		this.management = management;
		this.fallback = fallback;
	}

	/**
	 * Records that a subject is stored by a stream, reading the stream's window the first time.
	 * @param subject the subject published on
	 * @param stream the stream the server reported
	 */
	public void learn(String subject, String stream) {
		this.streamBySubject.putIfAbsent(subject, stream);
		if (!this.windowByStream.containsKey(stream)) {
			try {
				this.windowByStream.put(stream,
						this.management.getStreamInfo(stream).getConfiguration().getDuplicateWindow());
			}
			catch (IOException | JetStreamApiException | RuntimeException ex) {
				// unknown for now: the fallback applies and the next successful publish asks again
			}
		}
	}

	/**
	 * The duplicate window that applies to a subject, without asking the server.
	 * @param subject the publish subject
	 * @return the window of its stream, or the fallback
	 */
	public Duration forSubject(String subject) {
		String stream = this.streamBySubject.get(subject);
		Duration window = (stream != null) ? this.windowByStream.get(stream) : null;
		return (window != null) ? window : this.fallback;
	}

}
