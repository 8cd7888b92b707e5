package dev.exactlyonce.it;

import java.util.ArrayDeque;
import java.util.Deque;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened (servers, instances, certificates, connections), closed after each test, the
 * last opened first. Register it with {@code @RegisterExtension}.
 */
final class ClosedAfterEach implements AfterEachCallback {

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	/**
	 * Closes a resource after the test, before those added earlier.
	 * @param resource what to close
	 * @param <T> its type
	 * @return the resource
	 */
	<T extends AutoCloseable> T add(T resource) {
		this.resources.push(resource);
		return resource;
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		while (!this.resources.isEmpty()) {
			this.resources.pop().close();
		}
	}

}
