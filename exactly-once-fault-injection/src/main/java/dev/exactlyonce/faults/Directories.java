package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * File-system helpers of the driver.
 */
final class Directories {

	private Directories() {
	}

	/**
	 * Deletes a directory with everything in it, then creates it empty.
	 * @param directory the directory
	 * @throws IOException when it cannot be deleted or created
	 */
	static void recreate(Path directory) throws IOException {
		if (Files.exists(directory)) {
			try (Stream<Path> paths = Files.walk(directory)) {
				for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
					Files.delete(path);
				}
			}
		}
		Files.createDirectories(directory);
	}

}
