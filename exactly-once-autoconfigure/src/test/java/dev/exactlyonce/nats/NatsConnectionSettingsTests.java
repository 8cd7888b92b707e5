package dev.exactlyonce.nats;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection settings carry credentials; their text form, which ends up in logs and failure
 * reports when anything prints it, does not.
 */
class NatsConnectionSettingsTests {

	@Test
	void textFormLeavesOutPasswordTokenAndUserInfo() {
		NatsConnectionSettings settings = new NatsConnectionSettings(
				List.of("nats://alice:url-secret@nats-1:4222", "nats://nats-2:4222"), "worker", "alice",
				"password-secret", "token-secret", Path.of("/etc/nats/worker.creds"), null, Duration.ofSeconds(5),
				Duration.ofSeconds(2), false, true, "exactlyonce.nats.servers");

		assertThat(settings.toString()).contains("nats-1:4222", "nats-2:4222", "worker", "alice")
			.doesNotContain("password-secret", "token-secret", "url-secret");
	}

}
