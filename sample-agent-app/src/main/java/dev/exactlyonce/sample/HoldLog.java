package dev.exactlyonce.sample;

import java.time.Instant;

import org.springframework.stereotype.Component;

/**
 * When the marketing agent runs under a limit ({@code sample.limit}), its record of each handler's
 * critical section, for counting the limit's holders from outside: {@code start <taskId> <instanceId>
 * <ISO timestamp>} as the handler's first act (its slot is taken before) and {@code end ...} as its
 * last, returning or throwing (its slot is given back after), each line fsynced before the handler
 * goes on. A holder killed with {@code kill -9} has a start and no end. Writes nothing without a limit.
 */
@Component
class HoldLog {

	private final FsyncedLog log;

	private final String instanceId;

	HoldLog(SampleProperties properties) {
		boolean limited = properties.getLimit() != null && !properties.getLimit().isBlank();
		this.log = limited ? new FsyncedLog(properties.getOutputDir().resolve("holds.log")) : null;
		this.instanceId = properties.resolvedInstanceId();
	}

	void start(String taskId) {
		append("start", taskId);
	}

	void end(String taskId) {
		append("end", taskId);
	}

	private void append(String event, String taskId) {
		if (this.log != null) {
			this.log.append(event + " " + taskId + " " + this.instanceId + " " + Instant.now());
		}
	}

}
