package dev.exactlyonce.store.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Counts the commands a Redis server runs that mention any of some texts (ignoring case), Lua
 * scripts' own commands included, through {@code MONITOR} on a connection of its own.
 */
final class RedisCommandMonitor implements AutoCloseable {

	private static final int TIMEOUT_MILLIS = 10_000;

	private final String host;

	private final int port;

	private final List<String> texts;

	private final Socket monitor;

	private final BufferedReader lines;

	private long counted;

	private int marks;

	/**
	 * Starts monitoring.
	 * @param host the server's host
	 * @param port the server's port
	 * @param texts what a counted command mentions, one of them
	 */
	RedisCommandMonitor(String host, int port, String... texts) {
		this.host = host;
		this.port = port;
		this.texts = Stream.of(texts).map((text) -> text.toLowerCase(Locale.ROOT)).toList();
		try {
			this.monitor = new Socket(host, port);
			this.monitor.setSoTimeout(TIMEOUT_MILLIS);
			this.monitor.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			this.lines = new BufferedReader(new InputStreamReader(this.monitor.getInputStream(), StandardCharsets.UTF_8));
			if (!"+OK".equals(this.lines.readLine())) {
				throw new IllegalStateException("MONITOR refused");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The commands counted so far: every command the server ran before this call, as the server
	 * runs them one at a time (an {@code ECHO} sent now marks where to stop reading).
	 * @return the count
	 */
	long count() {
		String mark = "monitor-mark-" + (++this.marks);
		try (Socket echo = new Socket(this.host, this.port)) {
			echo.setSoTimeout(TIMEOUT_MILLIS);
			echo.getOutputStream().write(("ECHO " + mark + "\r\n").getBytes(StandardCharsets.US_ASCII));
			echo.getInputStream().read();
			for (String line = this.lines.readLine(); !line.contains(mark); line = this.lines.readLine()) {
				String command = line.toLowerCase(Locale.ROOT);
				if (this.texts.stream().anyMatch(command::contains)) {
					this.counted++;
				}
			}
			return this.counted;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() throws IOException {
		this.monitor.close();
	}

}
