package dev.exactlyonce.benchmark;

import java.util.Map;

/**
 * What one measured run produced.
 *
 * @param messagesPerSecond throughput from the first delivery to the last ack
 * @param latency per message, from its receipt by the client to its ack
 * @param segments per pipeline segment (exactly-once runs only), by name
 * @param cpuMicrosPerMessage CPU time of this JVM over the run (first pull to last ack), per message
 * @param serverCpuMicrosPerMessage CPU time of the servers over the same time, per message
 * @param redelivered messages the server delivered again (an ack wait ran out or a nak): 0 in a
 * healthy run, so anything else is a message that waited out its ack wait
 */
record RunResult(double messagesPerSecond, LatencyRecorder latency, Map<String, LatencyRecorder> segments,
		double cpuMicrosPerMessage, double serverCpuMicrosPerMessage, long redelivered) {

	RunResult(double messagesPerSecond, LatencyRecorder latency, Map<String, LatencyRecorder> segments,
			double cpuMicrosPerMessage, double serverCpuMicrosPerMessage) {
		this(messagesPerSecond, latency, segments, cpuMicrosPerMessage, serverCpuMicrosPerMessage, 0);
	}

	RunResult withRedelivered(long count) {
		return new RunResult(this.messagesPerSecond, this.latency, this.segments, this.cpuMicrosPerMessage,
				this.serverCpuMicrosPerMessage, count);
	}

}
