package dev.exactlyonce.benchmark;

import java.util.Map;

/**
 * What one measured run produced.
 *
 * @param messagesPerSecond throughput from the first delivery to the last ack
 * @param latency per message, from its receipt by the client to its ack
 * @param segments per pipeline segment (exactly-once runs only), by name
 * @param cpuMicrosPerMessage CPU time of this JVM over the run (first pull to last ack), per message
 */
record RunResult(double messagesPerSecond, LatencyRecorder latency, Map<String, LatencyRecorder> segments,
		double cpuMicrosPerMessage) {
}
