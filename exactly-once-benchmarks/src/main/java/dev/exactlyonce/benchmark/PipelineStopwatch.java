package dev.exactlyonce.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;

/**
 * Times every delivery of a run from receipt to ack, and the pipeline segments in between: claim
 * (RECEIVED to CLAIMED), handler (INVOKING to HANDLED), completion record (HANDLED to COMPLETED)
 * and ack (COMPLETED to ACKED); under load also from the publish to the ack. A run's stream holds
 * its messages at sequences 1 to N, so the times of a delivery sit in a slot allocated before the
 * run (no map on the measured path: the raw rows have no stopwatch to pay for).
 */
final class PipelineStopwatch implements PipelineObserver {

	private static final PipelinePoint[] POINTS = PipelinePoint.values();

	private final long[][] times;

	private final LatencyRecorder total;

	private final LatencyRecorder claim;

	private final LatencyRecorder handler;

	private final LatencyRecorder complete;

	private final LatencyRecorder ack;

	private final CountDownLatch acked;

	private final PublishToAck publishToAck;

	PipelineStopwatch(int messages) {
		this.times = new long[messages + 1][POINTS.length];
		this.publishToAck = new PublishToAck(messages);
		this.total = new LatencyRecorder(messages);
		this.claim = new LatencyRecorder(messages);
		this.handler = new LatencyRecorder(messages);
		this.complete = new LatencyRecorder(messages);
		this.ack = new LatencyRecorder(messages);
		this.acked = new CountDownLatch(messages);
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		long now = System.nanoTime();
		long[] points = this.times[(int) context.streamSequence()];
		points[point.ordinal()] = now;
		if (point == PipelinePoint.ACKED) {
			this.total.recordNanos(now - points[PipelinePoint.RECEIVED.ordinal()]);
			segment(this.claim, points, PipelinePoint.RECEIVED, PipelinePoint.CLAIMED);
			segment(this.handler, points, PipelinePoint.INVOKING, PipelinePoint.HANDLED);
			segment(this.complete, points, PipelinePoint.HANDLED, PipelinePoint.COMPLETED);
			segment(this.ack, points, PipelinePoint.COMPLETED, PipelinePoint.ACKED);
			this.publishToAck.acked(context.streamSequence());
			this.acked.countDown();
		}
	}

	private static void segment(LatencyRecorder segment, long[] points, PipelinePoint from, PipelinePoint to) {
		segment.recordNanos(points[to.ordinal()] - points[from.ordinal()]);
	}

	PublishToAck publishToAck() {
		return this.publishToAck;
	}

	CountDownLatch acked() {
		return this.acked;
	}

	LatencyRecorder total() {
		return this.total;
	}

	Map<String, LatencyRecorder> segments() {
		Map<String, LatencyRecorder> segments = new LinkedHashMap<>();
		segments.put("claim", this.claim);
		segments.put("handler", this.handler);
		segments.put("complete", this.complete);
		segments.put("ack", this.ack);
		segments.put("publish to ack", this.publishToAck.latency());
		return segments;
	}

}
