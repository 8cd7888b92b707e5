package dev.exactlyonce.children;

import java.lang.reflect.Type;
import java.util.Optional;

import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.children.spi.ChildFailures;
import dev.exactlyonce.children.spi.ChildSession;
import dev.exactlyonce.children.spi.JournaledResult;
import dev.exactlyonce.children.spi.TaskChildren;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.waits.DecisionDelivery;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Child tasks, assembled over the durable waits: what the pipeline calls to start and await
 * children ({@link #open}) and to report a child's result ({@link #completing}), and what tells a
 * parent that its child failed ({@link #failures()}).
 */
public final class ExactlyOnceChildren implements TaskChildren {

	private final ExactlyOncePublisher publisher;

	private final JsonMapper mapper;

	private final ChildResults results;

	private final ParentNotices failures;

	/**
	 * Creates the children.
	 * @param publisher publishes the children, or {@code null} when there is none (children cannot
	 * be started, their results are still reported)
	 * @param consumers the declared consumers (a child's parent is found among them)
	 * @param decisions the waits' decisions, where results and failures are stored for parents
	 * @param mapper the application's JSON mapper (results)
	 * @param maxResultBytes the largest result ({@code exactlyonce.steps.max-result-size})
	 */
	public ExactlyOnceChildren(ExactlyOncePublisher publisher, OperatedConsumers consumers, DecisionDelivery decisions,
			JsonMapper mapper, long maxResultBytes) {
		this.publisher = publisher;
		this.mapper = mapper;
		Parents parents = new Parents(consumers);
		this.results = new ChildResults(parents, decisions, mapper, maxResultBytes);
		this.failures = new ParentNotices(parents, consumers, decisions, mapper);
	}

	@Override
	public ChildSession open(WaitingTask task, WaitSession waits) {
		return (this.publisher != null) ? new TaskChildSession(task, waits, this.publisher, this.mapper) : null;
	}

	@Override
	public void completing(WaitingTask task, Object result, Runnable resultStored) {
		this.results.completing(task, result, resultStored);
	}

	@Override
	public Optional<JournaledResult> earlierResult(WaitingTask task, StepJournal journal, Type resultType) {
		return this.results.earlierResult(task, journal, resultType);
	}

	/**
	 * What tells a parent that its child was dead-lettered or discarded.
	 * @return the failures
	 */
	public ChildFailures failures() {
		return this.failures;
	}

}
