package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.StreamState;
import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;

/**
 * What NATS and the processes knew about the tasks a row lost or left stuck, read before the row's
 * NATS is closed: the publisher's PubAcks of each task, the stream and its consumers as the stream
 * leader answers them (with the deleted sequences), whether the leader still serves each acknowledged
 * sequence, each cluster node's own view of the stream ({@code /jsz}), whether the task's message id
 * is in that node's block files, the nodes' warnings, the idempotency records naming the task or
 * noting its sequence as another key's duplicate, the deploy tasks run from its sequence and the
 * consumers' console lines naming the task or its sequence. Written to {@link #FILE} in the row's directory; {@link #capture} returns one
 * line for the row's notes.
 */
final class LossEvidence {

	/** The evidence file in the row's directory. */
	static final String FILE = "loss-evidence.txt";

	/** Deleted sequences listed in full up to this many. */
	private static final int DELETED_LISTED = 50;

	private static final int NO_MESSAGE_FOUND = 10037;

	/** The sample's NATS KV idempotency bucket (the starter's default). */
	static final String IDEMPOTENCY_BUCKET = "exactly-once-idempotency";

	/** The duplicate copies a record notes ({@code IdempotencyRecord.duplicateSequences} as JSON). */
	private static final Pattern DUPLICATE_SEQUENCES = Pattern.compile("\"duplicateSequences\"\\s*:\\s*\\[([^\\]]*)\\]");

	/** A task's PubAck as the publisher printed it. */
	record PubAck(String task, long sequence, boolean duplicate, String stream, String source) {

		@Override
		public String toString() {
			return this.task + " seq " + this.sequence + (this.duplicate ? " duplicate" : " not duplicate") + " stream "
					+ this.stream + " (" + this.source + ")";
		}

	}

	private final StringBuilder text = new StringBuilder();

	private final List<String> summary = new ArrayList<>();

	private LossEvidence() {
	}

	/**
	 * Writes the evidence of the given tasks to {@code directory}/{@link #FILE}.
	 * @param directory the row's directory
	 * @param connection a connection to the row's NATS
	 * @param nodes the cluster's nodes, empty for a single server
	 * @param stream the WorkQueue stream
	 * @param consumers the stream's consumers
	 * @param acks the PubAcks of the lost or stuck tasks (a task without one is listed with none)
	 * @param tasks the lost or stuck task ids
	 * @param slots the consumers' slot directories (their {@code console.log} and {@code deploys.log})
	 * @return one line for the row's notes
	 */
	static String capture(Path directory, Connection connection, List<ClusterNode> nodes, String stream,
			List<String> consumers, List<PubAck> acks, List<String> tasks, List<Path> slots) {
		LossEvidence evidence = new LossEvidence();
		evidence.publisherAcks(acks, tasks);
		evidence.leaderView(connection, stream, consumers, acks);
		nodes.forEach((node) -> evidence.nodeView(node, stream, tasks));
		evidence.storeRecords(connection, tasks, acks);
		evidence.consoleLines(slots, tasks, acks);
		evidence.deploysAt(slots, acks);
		Path file = directory.resolve(FILE);
		try {
			Files.writeString(file, evidence.text);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return "loss evidence (" + file + "): " + String.join("; ", evidence.summary);
	}

	private void publisherAcks(List<PubAck> acks, List<String> tasks) {
		section("PubAcks of the lost or stuck tasks (publisher logs)");
		for (String task : tasks) {
			List<PubAck> ofTask = acks.stream().filter((ack) -> ack.task().equals(task)).toList();
			if (ofTask.isEmpty()) {
				line(task + ": no PubAck");
				this.summary.add(task + " never acknowledged by the stream");
			}
			ofTask.forEach((ack) -> line(ack.toString()));
			ofTask.stream().filter((ack) -> !ack.duplicate()).findFirst()
				.ifPresent((ack) -> this.summary.add(task + " PubAck seq " + ack.sequence() + " not duplicate"));
		}
	}

	private void leaderView(Connection connection, String stream, List<String> consumers, List<PubAck> acks) {
		section("stream " + stream + " and its consumers, as the stream leader answers");
		try {
			JetStreamManagement management = connection.jetStreamManagement();
			StreamInfo info = management.getStreamInfo(stream, StreamInfoOptions.deletedDetails());
			StreamState state = info.getStreamState();
			List<Long> deleted = (state.getDeleted() != null) ? state.getDeleted() : List.of();
			line("leader " + ((info.getClusterInfo() != null) ? info.getClusterInfo() : "(single server)"));
			line("first " + state.getFirstSequence() + ", last " + state.getLastSequence() + ", messages "
					+ state.getMsgCount() + ", deleted " + state.getDeletedCount()
					+ ((deleted.size() <= DELETED_LISTED) ? " " + deleted : " (more than " + DELETED_LISTED + ")"));
			this.summary.add("leader " + ((info.getClusterInfo() != null) ? info.getClusterInfo().getLeader() : "-")
					+ " first/last " + state.getFirstSequence() + "/" + state.getLastSequence() + " msgs "
					+ state.getMsgCount());
			for (String name : consumers) {
				ConsumerInfo consumer = management.getConsumerInfo(stream, name);
				line(name + ": " + consumerLine(consumer));
				this.summary.add(name + " " + consumerLine(consumer));
			}
			for (PubAck ack : acks) {
				line("getMessage(" + ack.sequence() + "): " + messageAt(management, stream, ack.sequence()));
			}
			acks.stream().filter((ack) -> !ack.duplicate()).forEach((ack) -> this.summary
				.add("seq " + ack.sequence() + " " + messageAt(management, stream, ack.sequence())));
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			line("unreadable: " + ex);
			this.summary.add("leader view unreadable: " + ex.getMessage());
		}
	}

	private static String consumerLine(ConsumerInfo consumer) {
		return "delivered stream/consumer seq " + consumer.getDelivered().getStreamSequence() + "/"
				+ consumer.getDelivered().getConsumerSequence() + ", ack floor stream/consumer seq "
				+ consumer.getAckFloor().getStreamSequence() + "/" + consumer.getAckFloor().getConsumerSequence()
				+ ", pending " + consumer.getNumPending() + ", ack pending " + consumer.getNumAckPending()
				+ ", awaiting redelivery " + consumer.getRedelivered();
	}

	private static String messageAt(JetStreamManagement management, String stream, long sequence) {
		try {
			MessageInfo message = management.getMessage(stream, sequence);
			return "present, subject " + message.getSubject() + ", Nats-Msg-Id "
					+ ((message.getHeaders() != null) ? message.getHeaders().getFirst("Nats-Msg-Id") : null);
		}
		catch (JetStreamApiException ex) {
			return (ex.getApiErrorCode() == NO_MESSAGE_FOUND) ? "no message (10037)" : "unreadable: " + ex.getMessage();
		}
		catch (IOException | IllegalStateException ex) {
			return "unreadable: " + ex.getMessage();
		}
	}

	/**
	 * The NATS KV idempotency records that name a lost task, or note an acknowledged sequence as a
	 * duplicate copy of their key (a consumer that received that sequence as another key's copy acked
	 * it without running). Rows on other stores have no such bucket: the section says so.
	 */
	private void storeRecords(Connection connection, List<String> tasks, List<PubAck> acks) {
		section("idempotency records (bucket " + IDEMPOTENCY_BUCKET + ") naming a lost task or noting its sequence as a duplicate");
		try {
			KeyValue bucket = connection.keyValue(IDEMPOTENCY_BUCKET);
			int records = 0;
			for (String key : bucket.keys()) {
				KeyValueEntry entry = bucket.get(key);
				String value = (entry != null && entry.getValue() != null) ? entry.getValueAsString() : "";
				records++;
				for (String task : tasks) {
					if (key.contains(task) || value.contains("\"" + task + "\"")) {
						line(key + ": " + value);
						this.summary.add("store record " + key + " names " + task);
					}
				}
				Matcher duplicates = DUPLICATE_SEQUENCES.matcher(value);
				if (duplicates.find()) {
					List<String> noted = List.of(duplicates.group(1).split("\\s*,\\s*"));
					acks.stream().filter((ack) -> noted.contains(Long.toString(ack.sequence()))).forEach((ack) -> {
						line(key + " notes sequence " + ack.sequence() + " as its duplicate: " + value);
						this.summary.add("sequence " + ack.sequence() + " acked as a duplicate of record " + key);
					});
				}
			}
			line(records + " record(s) read");
		}
		catch (IOException | JetStreamApiException | IllegalStateException ex) {
			line("unreadable: " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			line("interrupted");
		}
	}

	/**
	 * One node's own view: its {@code /jsz} entry of the stream, whether the task's message id is in
	 * its block files (bytes of a removed message may stay there until the block is compacted or
	 * dropped, so a hit says the node stored it once), and the warnings and errors of its log.
	 */
	private void nodeView(ClusterNode node, String stream, List<String> tasks) {
		section("node " + node.name() + " (" + node.directory() + ")");
		String jsz = node.jsz();
		if (jsz == null) {
			line("/jsz did not answer (node down?)");
			this.summary.add(node.name() + " down");
		}
		else {
			try {
				JsonValue detail = streamDetail(jsz, stream);
				line("/jsz " + ((detail != null) ? detail.toJson() : "has no stream " + stream));
				this.summary.add(node.name() + " " + ((detail != null) ? nodeSummary(detail) : "no stream " + stream));
			}
			catch (IllegalStateException ex) {
				line(ex.getMessage());
				this.summary.add(node.name() + " /jsz unreadable");
			}
		}
		Path blocks = node.directory().resolve("jetstream").resolve("$G").resolve("streams").resolve(stream).resolve("msgs");
		for (String task : tasks) {
			boolean found = blocksContain(blocks, ("Nats-Msg-Id:" + task + "\r\n").getBytes(StandardCharsets.UTF_8))
					|| blocksContain(blocks, ("Nats-Msg-Id: " + task + "\r\n").getBytes(StandardCharsets.UTF_8));
			line("message id " + task + " in the block files under " + blocks + ": " + found);
			this.summary.add(node.name() + " blocks " + (found ? "hold " : "lack ") + task);
		}
		Path log = node.directory().resolve("nats-" + node.name() + ".log");
		for (String warning : lines(log)) {
			if (warning.contains("[WRN]") || warning.contains("[ERR]")) {
				line("log: " + warning);
			}
		}
	}

	/** The stream's entry of a {@code /jsz?accounts=true&streams=true&consumers=true} answer. */
	static JsonValue streamDetail(String jsz, String stream) {
		try {
			JsonValue root = JsonParser.parse(jsz);
			for (JsonValue account : array(root, "account_details")) {
				for (JsonValue detail : array(account, "stream_detail")) {
					if (stream.equals(string(detail, "name"))) {
						return detail;
					}
				}
			}
			return null;
		}
		catch (JsonParseException ex) {
			throw new IllegalStateException("/jsz answered no JSON: " + ex.getMessage(), ex);
		}
	}

	/** A node's stream state, its leader and its consumers' sequences in one line. */
	static String nodeSummary(JsonValue detail) {
		JsonValue state = field(detail, "state");
		StringBuilder line = new StringBuilder("first/last " + number(state, "first_seq") + "/"
				+ number(state, "last_seq") + " msgs " + number(state, "messages") + " deleted "
				+ number(state, "num_deleted") + " leader " + string(field(detail, "cluster"), "leader"));
		for (JsonValue consumer : array(detail, "consumer_detail")) {
			line.append(", ").append(string(consumer, "name")).append(" delivered ")
				.append(number(field(consumer, "delivered"), "stream_seq")).append(" ack floor ")
				.append(number(field(consumer, "ack_floor"), "stream_seq")).append(" pending ")
				.append(number(consumer, "num_pending")).append(" ack pending ")
				.append(number(consumer, "num_ack_pending"));
		}
		return line.toString();
	}

	/**
	 * The deploy tasks the DevOps agent ran from a sequence the publisher was acknowledged for: the
	 * fifth field of a {@code deploys.log} line is the deploy message's stream sequence, so a hit means
	 * the stream gave that sequence to two messages.
	 */
	private void deploysAt(List<Path> slots, List<PubAck> acks) {
		section("deploy tasks run from a sequence acknowledged to the publisher (deploys.log)");
		int found = 0;
		for (Path slot : slots) {
			for (String line : lines(slot.resolve("deploys.log"))) {
				String[] fields = line.split(" ");
				String sequence = (fields.length > 4) ? fields[4] : "";
				if (acks.stream().anyMatch((ack) -> !ack.duplicate() && Long.toString(ack.sequence()).equals(sequence))) {
					line(slot.getFileName() + ": " + line);
					this.summary.add("sequence " + sequence + " also delivered as the deploy of " + fields[0]);
					found++;
				}
			}
		}
		if (found == 0) {
			line("none");
		}
	}

	private void consoleLines(List<Path> slots, List<String> tasks, List<PubAck> acks) {
		section("consumer console lines naming a lost or stuck task or its sequence");
		List<Pattern> patterns = new ArrayList<>();
		tasks.forEach((task) -> patterns.add(Pattern.compile(Pattern.quote(task) + "(?![0-9])")));
		acks.forEach((ack) -> patterns.add(Pattern.compile("sequence " + ack.sequence() + "(?![0-9])")));
		int found = 0;
		for (Path slot : slots) {
			for (String line : lines(slot.resolve("console.log"))) {
				if (patterns.stream().anyMatch((pattern) -> pattern.matcher(line).find())) {
					line(slot.getFileName() + ": " + line);
					found++;
				}
			}
		}
		this.summary.add(found + " console line(s) name them");
	}

	private static boolean blocksContain(Path directory, byte[] needle) {
		if (!Files.isDirectory(directory)) {
			return false;
		}
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().endsWith(".blk")).toList()) {
				if (indexOf(Files.readAllBytes(file), needle) >= 0) {
					return true;
				}
			}
			return false;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static int indexOf(byte[] haystack, byte[] needle) {
		outer: for (int i = 0; i + needle.length <= haystack.length; i++) {
			for (int j = 0; j < needle.length; j++) {
				if (haystack[i + j] != needle[j]) {
					continue outer;
				}
			}
			return i;
		}
		return -1;
	}

	private static JsonValue field(JsonValue value, String name) {
		return (value != null && value.map != null) ? value.map.get(name) : null;
	}

	private static List<JsonValue> array(JsonValue value, String name) {
		JsonValue field = field(value, name);
		return (field != null && field.array != null) ? field.array : List.of();
	}

	private static String string(JsonValue value, String name) {
		JsonValue field = field(value, name);
		return (field != null) ? field.string : null;
	}

	private static Object number(JsonValue value, String name) {
		JsonValue field = field(value, name);
		return (field != null && field.number != null) ? field.number : 0;
	}

	private static List<String> lines(Path file) {
		if (!Files.isRegularFile(file)) {
			return List.of();
		}
		try {
			// ISO-8859-1 reads any byte: a log line is never refused for its encoding
			return Files.readAllLines(file, StandardCharsets.ISO_8859_1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void section(String title) {
		this.text.append("== ").append(title).append('\n');
	}

	private void line(String line) {
		this.text.append(line).append('\n');
	}

}
