package dev.exactlyonce.benchmark;

import java.util.Map;

/**
 * What one measured run produced.
 *
 * @param messagesPerSecond throughput from the first delivery to the last ack
 * @param latency per message, from its receipt by the client to its ack
 * @param segments per pipeline segment (exactly-once runs only), by name
 */
record RunResult(double messagesPerSecond, LatencyRecorder latency, Map<String, LatencyRecorder> segments) {
}
