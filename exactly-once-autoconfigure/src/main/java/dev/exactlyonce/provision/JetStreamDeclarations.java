package dev.exactlyonce.provision;

import java.util.List;

/**
 * Everything the application declares on the JetStream server.
 *
 * @param deadLetterStream the stream that stores dead letters, or {@code null} when dead letters
 * are not stored on a stream
 * @param streams the declared streams
 * @param consumers the declared durable consumers
 */
public record JetStreamDeclarations(StreamDeclaration deadLetterStream, List<StreamDeclaration> streams,
		List<ConsumerDeclaration> consumers) {

	public JetStreamDeclarations {
		streams = List.copyOf(streams);
		consumers = List.copyOf(consumers);
	}

}
