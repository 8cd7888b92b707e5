package dev.exactlyonce.test;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code redis-server} on a free loopback port, working in its own temporary directory; by
 * default without persistence ({@code --save "" --appendonly no}), so a restart starts empty as a
 * Redis without persistence does after a crash, or with an append-only file. The binary is
 * {@code $REDIS_SERVER_BIN}, else {@code /usr/bin/redis-server}, else {@code redis-server} on the
 * path.
 */
public class RedisServerProcess extends ServerProcess {

	private final String appendFsync;

	/** Creates the handle of a server without persistence; call {@link #start()}. */
	public RedisServerProcess() {
		this(null);
	}

	/**
	 * Creates the handle; call {@link #start()}.
	 * @param appendFsync the append-only file's fsync policy ({@code always}, {@code everysec}),
	 * or {@code null} for no persistence
	 */
	public RedisServerProcess(String appendFsync) {
		super("redis-server");
		this.appendFsync = appendFsync;
	}

	@Override
	protected List<String> command() {
		List<String> command = new ArrayList<>(List.of(executable("REDIS_SERVER_BIN", "/usr/bin/redis-server",
				"redis-server"), "--port", Integer.toString(port()), "--bind", "127.0.0.1", "--save", "", "--dir",
				directory().toString()));
		if (this.appendFsync != null) {
			command.addAll(List.of("--appendonly", "yes", "--appendfsync", this.appendFsync));
		}
		else {
			command.addAll(List.of("--appendonly", "no"));
		}
		return command;
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

}
