package dev.exactlyonce.publish;

/**
 * What the server answered to a publish.
 *
 * @param stream the stream that stored the message
 * @param streamSequence its sequence in the stream (of the original when it is a duplicate)
 * @param duplicate whether the server recognised the message id inside the duplicate window and
 * stored nothing new
 */
public record PublishResult(String stream, long streamSequence, boolean duplicate) {
}
