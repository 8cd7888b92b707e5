package dev.exactlyonce.testapp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;

/**
 * Records every pipeline point and outcome of one application instance; can halt the pipeline
 * once at a chosen point, as a crash there would.
 */
public class PipelineRecorder implements PipelineObserver {

	private final List<String> points = new CopyOnWriteArrayList<>();

	private final List<DeliveryOutcome> outcomes = new CopyOnWriteArrayList<>();

	private final List<String> performedSteps = new CopyOnWriteArrayList<>();

	private volatile PipelinePoint haltAt;

	private volatile boolean haltEveryTime;

	private final AtomicInteger workingAcks = new AtomicInteger();

	private final AtomicInteger workingAckFailures = new AtomicInteger();

	private final Map<PipelinePoint, Runnable> actions = new ConcurrentHashMap<>();

	private final Map<Long, Long> highestDeliveryCounts = new ConcurrentHashMap<>();

	public void haltOnceAt(PipelinePoint point) {
		this.haltAt = point;
	}

	/** Halts every delivery at the point, as a process dying there on every attempt would. */
	public void haltEveryTimeAt(PipelinePoint point) {
		this.haltEveryTime = true;
		this.haltAt = point;
	}

	/** Runs an action in the worker thread each time a delivery reaches the point (a fault switched on there). */
	public void runAt(PipelinePoint point, Runnable action) {
		this.actions.put(point, action);
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		this.highestDeliveryCounts.merge(context.streamSequence(), context.deliveryCount(), Math::max);
		this.points.add(point + ":" + context.streamSequence() + ":" + context.deliveryCount());
		this.actions.getOrDefault(point, () -> {
		}).run();
		if (point == this.haltAt) {
			if (!this.haltEveryTime) {
				this.haltAt = null;
			}
			throw new IllegalStateException("simulated crash at " + point);
		}
	}

	/** Makes the next {@code count} working-ack notifications throw, as a faulty observer would. */
	public void failWorkingAcks(int count) {
		this.workingAckFailures.set(count);
	}

	@Override
	public void onWorkingAck(ExactlyOnceContext context, boolean leaseRenewed) {
		this.workingAcks.incrementAndGet();
		if (this.workingAckFailures.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
			throw new IllegalStateException("simulated failure of a working-ack observer");
		}
	}

	public int workingAcks() {
		return this.workingAcks.get();
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		this.outcomes.add(outcome);
	}

	public List<DeliveryOutcome> outcomes() {
		return List.copyOf(this.outcomes);
	}

	@Override
	public void onStepPerformed(ExactlyOnceContext context, String step) {
		this.performedSteps.add(step);
	}

	/** Names of the durable steps whose action returned, in order. */
	public List<String> performedSteps() {
		return List.copyOf(this.performedSteps);
	}

	/**
	 * The highest delivery count (the server's, from the message's metadata) each message reached
	 * in this instance, by stream sequence. Unlike the consumer's {@code num_redelivered}, which
	 * counts only messages still waiting to be redelivered, it never goes down once a message is
	 * acknowledged.
	 * @return stream sequence to highest delivery count seen
	 */
	public Map<Long, Long> highestDeliveryCounts() {
		return Map.copyOf(this.highestDeliveryCounts);
	}

	public long count(PipelinePoint point) {
		return this.points.stream().filter((p) -> p.startsWith(point + ":")).count();
	}

}
