package dev.exactlyonce.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.ServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test server's temporary directory goes when the server is closed, stays across a stop and
 * restart, and stays when the user asks to keep it for debugging.
 */
class ServerDirectoryIntegrationTests {

	private static final String KEEP = "exactlyonce.test.keep-server-directories";

	private Path kept;

	@AfterEach
	void forgetTheProperty() throws Exception {
		System.clearProperty(KEEP);
		if (this.kept != null) {
			try (var paths = Files.walk(this.kept)) {
				paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

	@Test
	void aClosedNatsServerLeavesNoDirectory() {
		assertDeletedOnClose(new NatsServerProcess());
	}

	@Test
	void aClosedRedisServerLeavesNoDirectory() {
		assertDeletedOnClose(new RedisServerProcess());
	}

	@Test
	void aStoppedServerKeepsItsDirectoryForARestart() {
		try (NatsServerProcess nats = new NatsServerProcess()) {
			nats.start();
			nats.stop();
			assertThat(nats.directory().resolve("jetstream")).isDirectory();
			nats.start();
			assertThat(nats.directory()).isDirectory();
		}
	}

	@Test
	void theDirectoryIsKeptWhenAskedFor() {
		System.setProperty(KEEP, "true");
		NatsServerProcess nats = new NatsServerProcess();
		nats.start();
		nats.close();
		this.kept = nats.directory();
		assertThat(this.kept.resolve("nats-server.log")).isRegularFile();
	}

	private static void assertDeletedOnClose(ServerProcess server) {
		server.start();
		Path directory = server.directory();
		assertThat(directory).isDirectory();
		server.close();
		assertThat(directory).doesNotExist();
	}

}
