package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nats.client.api.ServerInfo;

/**
 * Whether the nats-server the suite runs keeps replicated streams: releases before
 * {@value #SAFE_VERSION} lost acknowledged tasks of the WorkQueue stream in {@code CLUSTER_NODE_KILL}
 * (finding 17 in docs/fault-injection.md; docs/compatibility.md tells users the same), so the short
 * version runs that row only on a newer server.
 */
final class ClusterSupport {

	/** The oldest nats-server release whose clustered streams the fault suite holds to its guarantees. */
	static final String SAFE_VERSION = "2.10.19";

	private static final Pattern VERSION = Pattern.compile("v?(\\d+\\.\\d+\\.\\d+)");

	private static String installed;

	private ClusterSupport() {
	}

	/**
	 * Why the short version leaves {@code CLUSTER_NODE_KILL} out on this machine's nats-server.
	 * @return the reason, or {@code null} when the server is {@value #SAFE_VERSION} or newer
	 */
	static String whyLeftOut() {
		return reasonFor(installedVersion());
	}

	/**
	 * Why {@code CLUSTER_NODE_KILL} is left out on a nats-server of this version.
	 * @param version e.g. {@code 2.9.10}
	 * @return the reason, or {@code null} when the version is {@value #SAFE_VERSION} or newer
	 */
	static String reasonFor(String version) {
		if (!new ServerInfo("INFO {\"version\":\"" + version + "\"}").isOlderThanVersion(SAFE_VERSION)) {
			return null;
		}
		return "nats-server " + version + " is older than " + SAFE_VERSION
				+ ", whose replicated WorkQueue streams lose acknowledged tasks when a node restarts (finding 17); "
				+ "run the row on a newer server (NATS_SERVER_BIN; .ci/run does on Debian sid's)";
	}

	/**
	 * Whether this machine's nats-server keeps a consumer's pending entry of a message its stream
	 * removed (a kill -9 left the consumer's state behind the stream's) until the entry runs out of
	 * deliveries, holding a {@code max-ack-pending} slot for {@code max-deliver x ack-wait}: releases
	 * before 2.11.0 (nats-server commit 090fd6494, "Consumer slowdown when redelivering deleted
	 * message"); docs/compatibility.md.
	 * @return whether it is older than 2.11.0
	 */
	static boolean keepsPendingOfRemovedMessages() {
		return new ServerInfo("INFO {\"version\":\"" + installedVersion() + "\"}").isOlderThanVersion("2.11.0");
	}

	/** The version {@code nats-server --version} prints, read once. */
	static synchronized String installedVersion() {
		if (installed == null) {
			installed = versionOf(Binaries.natsServer());
		}
		return installed;
	}

	/**
	 * The version a nats-server binary reports.
	 * @param binary the program
	 * @return e.g. {@code 2.9.10}
	 */
	static String versionOf(String binary) {
		try {
			Process process = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor();
			Matcher matcher = VERSION.matcher(output);
			if (!matcher.find()) {
				throw new IllegalStateException("'" + binary + " --version' printed no version: " + output.strip());
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run '" + binary + " --version'", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running '" + binary + " --version'", ex);
		}
	}

}
