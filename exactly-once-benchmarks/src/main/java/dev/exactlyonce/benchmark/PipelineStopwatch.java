package dev.exactlyonce.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;

/**
 * Times every delivery of a run from receipt to ack, and the pipeline segments in between: claim
 * (RECEIVED to CLAIMED), handler (INVOKING to HANDLED), completion record (HANDLED to COMPLETED)
 * and ack (COMPLETED to ACKED).
 */
final class PipelineStopwatch implements PipelineObserver {

	private final Map<Long, long[]> times = new ConcurrentHashMap<>();

	private final LatencyRecorder total;

	private final Map<String, LatencyRecorder> segments = new LinkedHashMap<>();

	private final CountDownLatch acked;

	PipelineStopwatch(int messages) {
		this.total = new LatencyRecorder(messages);
		for (String segment : new String[] { "claim", "handler", "complete", "ack" }) {
			this.segments.put(segment, new LatencyRecorder(messages));
		}
		this.acked = new CountDownLatch(messages);
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		long now = System.nanoTime();
		long[] points = this.times.computeIfAbsent(context.streamSequence(), (seq) -> new long[PipelinePoint.values().length]);
		points[point.ordinal()] = now;
		if (point == PipelinePoint.ACKED) {
			this.total.recordNanos(now - points[PipelinePoint.RECEIVED.ordinal()]);
			segment("claim", points, PipelinePoint.RECEIVED, PipelinePoint.CLAIMED);
			segment("handler", points, PipelinePoint.INVOKING, PipelinePoint.HANDLED);
			segment("complete", points, PipelinePoint.HANDLED, PipelinePoint.COMPLETED);
			segment("ack", points, PipelinePoint.COMPLETED, PipelinePoint.ACKED);
			this.acked.countDown();
		}
	}

	private void segment(String name, long[] points, PipelinePoint from, PipelinePoint to) {
		this.segments.get(name).recordNanos(points[to.ordinal()] - points[from.ordinal()]);
	}

	CountDownLatch acked() {
		return this.acked;
	}

	LatencyRecorder total() {
		return this.total;
	}

	Map<String, LatencyRecorder> segments() {
		return this.segments;
	}

}
