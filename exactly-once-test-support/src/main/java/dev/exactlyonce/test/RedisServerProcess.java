package dev.exactlyonce.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@code redis-server} without persistence ({@code --save "" --appendonly no}) on a free
 * loopback port, working in its own temporary directory. The binary is {@code $REDIS_SERVER_BIN},
 * else {@code /usr/bin/redis-server}, else {@code redis-server} on the path. A restart therefore
 * starts empty, as a Redis without persistence does after a crash.
 */
public class RedisServerProcess extends ServerProcess {

	/** Creates the handle; call {@link #start()}. */
	public RedisServerProcess() {
		super("redis-server");
	}

	@Override
	protected List<String> command() {
		return List.of(binary(), "--port", Integer.toString(port()), "--bind", "127.0.0.1", "--save", "",
				"--appendonly", "no", "--dir", directory().toString());
	}

	/**
	 * The host the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public RedisServerProcess start() {
		super.start();
		return this;
	}

	private static String binary() {
		String configured = System.getenv("REDIS_SERVER_BIN");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		return Files.isExecutable(Path.of("/usr/bin/redis-server")) ? "/usr/bin/redis-server" : "redis-server";
	}

}
