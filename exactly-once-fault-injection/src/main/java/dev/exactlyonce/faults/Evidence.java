package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamState;

/**
 * Reads what happened, independently of the pipeline: the fsynced side-effect ledgers and chaos
 * logs the consumer JVMs wrote, their console output, and the dead letters in the
 * {@code DEAD_LETTERS} stream.
 */
final class Evidence {

	static final String DEAD_LETTER_STREAM = "DEAD_LETTERS";

	private static final int NO_MESSAGE_FOUND = 10037;

	private static final int STREAM_NOT_FOUND = 10059;

	private Evidence() {
	}

	/**
	 * Executions per task id, from every {@code ledger.log} under the slot directories.
	 * @param slots the consumer slots
	 * @return task id to execution count, in ledger order
	 */
	static Map<String, Integer> executions(List<ConsumerSlot> slots) {
		Map<String, Integer> executions = new LinkedHashMap<>();
		for (ConsumerSlot slot : slots) {
			for (String line : lines(slot.directory().resolve("ledger.log"))) {
				if (!line.isBlank()) {
					executions.merge(line.split(" ")[0], 1, Integer::sum);
				}
			}
		}
		return executions;
	}

	/** Total ledger lines: the progress measure while a row runs. */
	static int ledgerLines(List<ConsumerSlot> slots) {
		int total = 0;
		for (ConsumerSlot slot : slots) {
			total += lines(slot.directory().resolve("ledger.log")).size();
		}
		return total;
	}

	/** Lines of a slot's {@code drafts.log}: one per model call, written half-way through the handler. */
	static int modelCalls(ConsumerSlot slot) {
		return lines(slot.directory().resolve("drafts.log")).size();
	}

	/** Lines of every slot's {@code chaos.log}: one per chaos halt. */
	static List<String> chaosHalts(List<ConsumerSlot> slots) {
		List<String> halts = new ArrayList<>();
		for (ConsumerSlot slot : slots) {
			halts.addAll(lines(slot.directory().resolve("chaos.log")).stream().filter((l) -> !l.isBlank()).toList());
		}
		return halts;
	}

	/** How many console lines of all slots contain {@code text}. */
	static int consoleLinesContaining(List<ConsumerSlot> slots, String text) {
		int count = 0;
		for (ConsumerSlot slot : slots) {
			count += (int) lines(slot.directory().resolve("console.log")).stream()
				.filter((line) -> line.contains(text))
				.count();
		}
		return count;
	}

	/**
	 * The message ids ({@code Nats-Msg-Id}) of the messages a stream still holds: on a WorkQueue
	 * stream, the ones not acknowledged or terminated yet.
	 * @param connection a connection to the row's NATS
	 * @param stream the stream
	 * @return the ids
	 */
	static Set<String> messageIdsIn(Connection connection, String stream) {
		Set<String> ids = new HashSet<>();
		try {
			JetStreamManagement management = connection.jetStreamManagement();
			StreamState state = management.getStreamInfo(stream).getStreamState();
			for (long sequence = state.getFirstSequence(); state.getMsgCount() > 0
					&& sequence <= state.getLastSequence(); sequence++) {
				String id = header(messageAt(management, stream, sequence), "Nats-Msg-Id");
				if (id != null) {
					ids.add(id);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (JetStreamApiException ex) {
			throw new IllegalStateException("Could not read " + stream + ": " + ex.getMessage(), ex);
		}
		return ids;
	}

	/**
	 * Reads the dead letters of a row incrementally: key header to reason header ({@code null} when
	 * missing).
	 */
	static final class DeadLetters {

		private final Connection connection;

		private final Map<String, String> reasons = new TreeMap<>();

		private long next = 1;

		DeadLetters(Connection connection) {
			this.connection = connection;
		}

		/**
		 * Reads what was added since the last call.
		 * @return every dead letter so far, key to reason, sorted by key
		 */
		Map<String, String> read() {
			try {
				JetStreamManagement management = this.connection.jetStreamManagement();
				long last;
				try {
					last = management.getStreamInfo(DEAD_LETTER_STREAM).getStreamState().getLastSequence();
				}
				catch (JetStreamApiException ex) {
					if (ex.getApiErrorCode() == STREAM_NOT_FOUND) {
						return this.reasons;
					}
					throw ex;
				}
				for (; this.next <= last; this.next++) {
					MessageInfo message = messageAt(management, DEAD_LETTER_STREAM, this.next);
					if (message != null) {
						this.reasons.put(String.valueOf(header(message, "Exactly-Once-Key")),
								header(message, "Exactly-Once-Reason"));
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (JetStreamApiException ex) {
				throw new IllegalStateException("Could not read " + DEAD_LETTER_STREAM + ": " + ex.getMessage(), ex);
			}
			return this.reasons;
		}

	}

	/** The message at a sequence, or {@code null} when it was deleted. */
	private static MessageInfo messageAt(JetStreamManagement management, String stream, long sequence)
			throws IOException, JetStreamApiException {
		try {
			return management.getMessage(stream, sequence);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() != NO_MESSAGE_FOUND) {
				throw ex;
			}
			return null;
		}
	}

	/** A header's first value, or {@code null} when the message (or the header) is missing. */
	private static String header(MessageInfo message, String name) {
		return (message != null && message.getHeaders() != null) ? message.getHeaders().getFirst(name) : null;
	}

	/**
	 * The lines of one log file in every slot's directory, slot after slot.
	 * @param slots the consumer slots
	 * @param file the file's name, e.g. {@code ledger.log}
	 * @return the non-blank lines
	 */
	static List<String> linesOf(List<ConsumerSlot> slots, String file) {
		return slots.stream()
			.flatMap((slot) -> lines(slot.directory().resolve(file)).stream())
			.filter((line) -> !line.isBlank())
			.toList();
	}

	/** The lines of a file a consumer JVM writes, none when it does not exist yet. */
	static List<String> lines(Path file) {
		if (!Files.isRegularFile(file)) {
			return List.of();
		}
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
