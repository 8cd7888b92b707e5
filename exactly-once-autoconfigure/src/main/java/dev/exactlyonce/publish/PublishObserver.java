package dev.exactlyonce.publish;

/**
 * Extension point told about every publish the server confirmed, e.g. to count stored messages
 * and duplicates caught by the stream's deduplication. Implementations must be fast and must not
 * throw; an exception is logged and ignored, never turned into a failed publish.
 */
@FunctionalInterface
public interface PublishObserver {

	/**
	 * Called after the server confirmed a publish.
	 * @param subject the subject published on
	 * @param result what the server answered
	 */
	void onPublished(String subject, PublishResult result);

}
