package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A test server's own temporary directory ({@code exactlyonce-<name>-*}), deleted with everything in
 * it on request, or kept for debugging when the system property {@value #KEEP_PROPERTY} or the environment variable
 * {@value #KEEP_VARIABLE} is {@code true}.
 */
final class ServerDirectory {

	/** The system property that keeps every server's directory. */
	static final String KEEP_PROPERTY = "exactlyonce.test.keep-server-directories";

	/** The environment variable that keeps every server's directory. */
	static final String KEEP_VARIABLE = "EXACTLYONCE_TEST_KEEP_SERVER_DIRECTORIES";

	private final Path path;

	private boolean deleted;

	ServerDirectory(String name) {
		try {
			this.path = Files.createTempDirectory("exactlyonce-" + name + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	Path path() {
		return this.path;
	}

	/** Deletes the directory with everything in it, unless asked to keep it; the server must no longer run. */
	synchronized void delete() {
		if (this.deleted || kept()) {
			return;
		}
		this.deleted = true;
		try (Stream<Path> paths = Files.walk(this.path)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// already gone, or a file vanished while walking: nothing left to delete
		}
	}

	private static boolean kept() {
		return Boolean.parseBoolean(System.getProperty(KEEP_PROPERTY))
				|| Boolean.parseBoolean(System.getenv(KEEP_VARIABLE));
	}

}
