package dev.exactlyonce.takeover;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.exactlyonce.listener.ClaimOwners;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;

/**
 * The tasks this incarnation runs, as the pipeline claims and settles them: what its record in the
 * instances bucket lists, so that its next incarnation can take them over after a crash.
 */
public final class RunningTasks implements PipelineObserver {

	private final String instanceId;

	private final Function<String, String> namespaces;

	private final Map<String, String> namespaceByConsumer = new ConcurrentHashMap<>();

	private final Map<String, RunningTask> byToken = new ConcurrentHashMap<>();

	private final AtomicLong changes = new AtomicLong();

	/**
	 * Creates the list.
	 * @param instanceId the instance id claims are made as
	 * @param namespaces the store namespace of a consumer's listener
	 */
	public RunningTasks(String instanceId, Function<String, String> namespaces) {
		this.instanceId = instanceId;
		this.namespaces = namespaces;
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (point == PipelinePoint.CLAIMED && context.fencingToken() != null) {
			String namespace = this.namespaceByConsumer.computeIfAbsent(context.consumer(), this.namespaces);
			this.byToken.put(context.fencingToken(),
					new RunningTask(namespace + ":" + context.key(), ClaimOwners.of(this.instanceId, context.streamSequence()),
							context.fencingToken(), context.stream(), context.consumer(), context.streamSequence(),
							context.deliveryCount()));
			this.changes.incrementAndGet();
		}
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		ended(context);
	}

	@Override
	public void onHalted(ExactlyOnceContext context) {
		ended(context);
	}

	private void ended(ExactlyOnceContext context) {
		String token = context.fencingToken();
		if (token != null && this.byToken.remove(token) != null) {
			this.changes.incrementAndGet();
		}
	}

	/**
	 * The tasks running now.
	 * @return a copy
	 */
	List<RunningTask> snapshot() {
		return List.copyOf(this.byToken.values());
	}

	/**
	 * A number that changes whenever the running tasks do.
	 * @return the count of changes so far
	 */
	long changes() {
		return this.changes.get();
	}

}
