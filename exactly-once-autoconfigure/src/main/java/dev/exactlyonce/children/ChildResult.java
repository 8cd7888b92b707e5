package dev.exactlyonce.children;

/**
 * What one child of {@code ExactlyOnceContext.awaitAll} ended with: its result, or why it failed.
 *
 * @param <T> the result type
 * @param child the child
 * @param result what its listener returned (may be {@code null}), or {@code null} when it failed
 * @param failure why it failed, or {@code null} when it completed
 */
public record ChildResult<T>(ChildTask child, T result, ChildFailedException failure) {

	/**
	 * Whether the child failed (dead-lettered and not completed since, or discarded).
	 * @return {@code true} when it failed
	 */
	public boolean failed() {
		return this.failure != null;
	}

	/**
	 * The child's result.
	 * @return what its listener returned
	 * @throws ChildFailedException when it failed
	 */
	public T get() {
		if (this.failure != null) {
			throw this.failure;
		}
		return this.result;
	}

}
