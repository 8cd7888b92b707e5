package dev.exactlyonce.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Publishes with the bare NATS protocol over a socket, as another client (nats.js, nats.go) may:
 * header names and values are sent as their UTF-8 bytes, unchecked, which the Java client would
 * refuse to send.
 */
final class RawNatsPublisher implements AutoCloseable {

	private final Socket socket;

	private final OutputStream out;

	private final InputStream in;

	RawNatsPublisher(String url) throws IOException {
		URI uri = URI.create(url);
		this.socket = new Socket(uri.getHost(), uri.getPort());
		this.socket.setSoTimeout(10_000);
		this.out = this.socket.getOutputStream();
		this.in = this.socket.getInputStream();
		readLine();
		this.out.write(ascii("CONNECT {\"headers\":true,\"verbose\":false,\"pedantic\":false}\r\n"));
		flush();
	}

	/**
	 * Builds a header block {@code NATS/1.0\r\nname: value\r\n...\r\n} from name/value pairs.
	 * @param namesAndValues name, value, name, value...
	 * @return the block as UTF-8 bytes
	 */
	static byte[] headers(String... namesAndValues) {
		StringBuilder block = new StringBuilder("NATS/1.0\r\n");
		for (int i = 0; i < namesAndValues.length; i += 2) {
			block.append(namesAndValues[i]).append(": ").append(namesAndValues[i + 1]).append("\r\n");
		}
		return block.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
	}

	/** Sends one message with a header block ({@code HPUB}); call {@link #flush()} to wait for the server. */
	void publish(String subject, byte[] headerBlock, byte[] payload) throws IOException {
		this.out.write(ascii("HPUB " + subject + " " + headerBlock.length + " " + (headerBlock.length + payload.length)
				+ "\r\n"));
		this.out.write(headerBlock);
		this.out.write(payload);
		this.out.write(ascii("\r\n"));
	}

	/** Sends a PING and waits for the PONG: every message sent before has been processed by the server. */
	void flush() throws IOException {
		this.out.write(ascii("PING\r\n"));
		this.out.flush();
		String line = readLine();
		while (!line.equals("PONG")) {
			if (line.startsWith("-ERR")) {
				throw new IOException("Server refused: " + line);
			}
			line = readLine();
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b = this.in.read();
		while (b != '\n') {
			if (b < 0) {
				throw new IOException("Connection closed by the server");
			}
			if (b != '\r') {
				line.write(b);
			}
			b = this.in.read();
		}
		return line.toString(StandardCharsets.UTF_8);
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
