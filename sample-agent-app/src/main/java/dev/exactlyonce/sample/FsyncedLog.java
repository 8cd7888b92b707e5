package dev.exactlyonce.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An append-only text file whose every line is flushed and fsynced before {@link #append} returns,
 * so it survives a {@code kill -9} right after: the sample's record of what its agents really did.
 */
final class FsyncedLog {

	private final Path file;

	FsyncedLog(Path file) {
		this.file = file;
	}

	/**
	 * Appends and fsyncs one line.
	 * @param line the line, without its line break
	 */
	synchronized void append(String line) {
		try {
			Files.createDirectories(this.file.getParent());
			try (FileChannel channel = FileChannel.open(this.file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
					StandardOpenOption.APPEND)) {
				channel.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
				channel.force(true);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not append to " + this.file, ex);
		}
	}

}
