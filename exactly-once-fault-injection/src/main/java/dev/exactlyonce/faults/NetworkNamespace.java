package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A network namespace (iproute2, needs root) joined to the root namespace by a veth pair, for one
 * consumer JVM: the root side has {@link #natsAddress()} (NATS, listening on every address) and
 * {@link #storeAddress()} (the store's server), the namespace side {@code .2} with a default route
 * through the root side. {@link #cutLink()} takes the root side of the pair down: nothing passes
 * either way, no reset is sent, and the connections carry on after {@link #healLink()}, as after
 * a real partition. {@link #cutStorePath()} blackholes only the store's address inside the
 * namespace, so NATS stays reachable. The namespace is named {@code eofaults-<run>-<n>}, where the
 * run is {@code $FAULTS_RUN_ID} (set by {@code scripts/fault-suite.sh}, whose exit trap deletes
 * what a dead run left) or this JVM's pid; {@link #close()} and a shutdown hook delete it.
 */
final class NetworkNamespace implements AutoCloseable {

	private static final AtomicInteger created = new AtomicInteger();

	private final String name;

	private final String hostSide;

	private final String subnet;

	private final Thread cleanup = new Thread(this::delete, "netns-cleanup");

	private boolean closed;

	private NetworkNamespace(String name, String hostSide, String subnet) {
		this.name = name;
		this.hostSide = hostSide;
		this.subnet = subnet;
	}

	/**
	 * Why no namespace can be made here, or {@code null} when it can: not root, no {@code ip}, or
	 * {@code ip netns} refused.
	 * @return the reason, or {@code null}
	 */
	static String unavailableReason() {
		String uid = output(List.of("id", "-u")).trim();
		if (!uid.equals("0")) {
			return "network namespaces need root (this runs as uid " + uid + "); CI runs as root";
		}
		Result probe = run(List.of("ip", "netns", "list"));
		if (probe.status() != 0) {
			return "'ip netns list' failed (" + probe.output().trim() + "): install iproute2";
		}
		return null;
	}

	/**
	 * Creates a namespace with its veth pair on a free {@code 10.231.x.0/24}.
	 * @return the namespace
	 * @throws IllegalStateException with iproute2's message when a step fails
	 */
	static NetworkNamespace create() {
		String run = System.getenv().getOrDefault("FAULTS_RUN_ID", Long.toString(ProcessHandle.current().pid()));
		int index = created.incrementAndGet();
		String shortRun = Integer.toString(Math.floorMod(run.hashCode(), 100_000));
		NetworkNamespace namespace = new NetworkNamespace("eofaults-" + run + "-" + index,
				"eof" + shortRun + "h" + index, freeSubnet());
		Runtime.getRuntime().addShutdownHook(namespace.cleanup);
		try {
			namespace.setUp("eof" + shortRun + "c" + index);
		}
		catch (RuntimeException ex) {
			namespace.close();
			throw ex;
		}
		return namespace;
	}

	private void setUp(String namespaceSide) {
		must(List.of("ip", "netns", "add", this.name));
		must(List.of("ip", "link", "add", this.hostSide, "type", "veth", "peer", "name", namespaceSide));
		must(List.of("ip", "link", "set", namespaceSide, "netns", this.name));
		must(List.of("ip", "addr", "add", natsAddress() + "/24", "dev", this.hostSide));
		must(List.of("ip", "addr", "add", storeAddress() + "/32", "dev", this.hostSide));
		must(List.of("ip", "link", "set", this.hostSide, "up"));
		inside("ip", "link", "set", "lo", "up");
		inside("ip", "addr", "add", this.subnet + ".2/24", "dev", namespaceSide);
		inside("ip", "link", "set", namespaceSide, "up");
		inside("ip", "route", "add", "default", "via", natsAddress());
	}

	/** The root side's address a consumer in the namespace reaches NATS at. */
	String natsAddress() {
		return this.subnet + ".1";
	}

	/** The root side's address a consumer in the namespace reaches the store's server at. */
	String storeAddress() {
		return this.subnet + ".3";
	}

	/**
	 * The command prefix that runs a program inside the namespace.
	 * @return {@code ip netns exec <name>}
	 */
	List<String> commandPrefix() {
		return List.of("ip", "netns", "exec", this.name);
	}

	/** Cuts the veth link: every packet between the namespace and the root namespace is dropped. */
	void cutLink() {
		must(List.of("ip", "link", "set", this.hostSide, "down"));
	}

	/** Brings the veth link back. */
	void healLink() {
		must(List.of("ip", "link", "set", this.hostSide, "up"));
	}

	/** Blackholes the store's address inside the namespace: its packets are dropped, NATS stays reachable. */
	void cutStorePath() {
		inside("ip", "route", "add", "blackhole", storeAddress() + "/32");
	}

	/** Removes the blackhole route. */
	void healStorePath() {
		inside("ip", "route", "del", "blackhole", storeAddress() + "/32");
	}

	/** Deletes the veth pair and the namespace (processes still inside keep theirs until they exit). */
	@Override
	public synchronized void close() {
		delete();
		try {
			Runtime.getRuntime().removeShutdownHook(this.cleanup);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: the hook runs (or ran) delete() itself
		}
	}

	private synchronized void delete() {
		if (!this.closed) {
			this.closed = true;
			run(List.of("ip", "link", "del", this.hostSide));
			run(List.of("ip", "netns", "del", this.name));
		}
	}

	@Override
	public String toString() {
		return this.name + " (" + this.subnet + ".2, NATS at " + natsAddress() + ", store at " + storeAddress() + ")";
	}

	private void inside(String... command) {
		List<String> full = new ArrayList<>(commandPrefix());
		full.addAll(List.of(command));
		must(full);
	}

	/** The first {@code 10.231.x} with no address on this machine yet. */
	private static String freeSubnet() {
		String addresses = output(List.of("ip", "-o", "-4", "addr", "show"));
		for (int x = 1; x < 255; x++) {
			if (!addresses.contains(" 10.231." + x + ".")) {
				return "10.231." + x;
			}
		}
		throw new IllegalStateException("No free 10.231.x.0/24 subnet for a network namespace");
	}

	private static void must(List<String> command) {
		Result result = run(command);
		if (result.status() != 0) {
			throw new IllegalStateException("'" + String.join(" ", command) + "' failed with status " + result.status()
					+ ": " + result.output().trim());
		}
	}

	private static String output(List<String> command) {
		return run(command).output();
	}

	private static Result run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return new Result(-1, "timed out");
			}
			return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			return new Result(-1, ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	private record Result(int status, String output) {
	}

}
