package dev.exactlyonce.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

import org.springframework.stereotype.Component;

/**
 * The side-effect ledger: one line per execution of the marketing agent,
 * {@code <taskId> <deliveryCount> <instanceId> <ISO timestamp>}, flushed and fsynced before the
 * handler returns, so it survives a {@code kill -9} right after.
 */
@Component
public class PostLedger {

	private final Path file;

	private final String instanceId;

	PostLedger(SampleProperties properties) throws IOException {
		Files.createDirectories(properties.getOutputDir());
		this.file = properties.getOutputDir().resolve("ledger.log");
		this.instanceId = properties.resolvedInstanceId();
	}

	/**
	 * Appends and fsyncs one execution.
	 * @param taskId the task
	 * @param deliveryCount the delivery it ran on
	 */
	public synchronized void record(String taskId, long deliveryCount) {
		String line = taskId + " " + deliveryCount + " " + this.instanceId + " " + Instant.now() + "\n";
		try (FileChannel channel = FileChannel.open(this.file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
				StandardOpenOption.APPEND)) {
			channel.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
			channel.force(true);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not append to " + this.file, ex);
		}
	}

}
