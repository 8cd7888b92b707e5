package dev.exactlyonce.children.spi;

import java.lang.reflect.Type;
import java.util.Optional;

import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Child tasks as the pipeline uses them (implemented by {@code dev.exactlyonce.children}): the
 * children a claimed delivery starts and awaits, and the report of a child's result to its parent.
 */
public interface TaskChildren {

	/**
	 * Opens the children of a claimed delivery.
	 * @param task the delivery, as its waits see it
	 * @param waits its durable waits
	 * @return its children, or {@code null} when children cannot be started (no publisher)
	 */
	ChildSession open(WaitingTask task, WaitSession waits);

	/**
	 * Reports what a child task's handler returned to its parent, when the delivery is a child (its
	 * message names a parent), before its completion record is written: the first result of its run
	 * is journaled, then stored for the parent, which is resumed if it waits for it. Does nothing for
	 * a delivery that is no child.
	 * @param task the delivery
	 * @param result what its handler returned
	 * @param resultStored called once the result is stored for the parent, before the parent is
	 * resumed (the pipeline tells its observers)
	 * @throws RuntimeException when the result could not be journaled or stored: the attempt fails and
	 * is retried like any failed attempt
	 */
	void completing(WaitingTask task, Object result, Runnable resultStored);

	/**
	 * The result an earlier attempt of a child's run journaled before its report to the parent
	 * failed (a store or NATS outage, a crash before the report was stored): the pipeline reports it
	 * again instead of running the handler again, as it does with a parked completion.
	 * @param task the delivery
	 * @param journal its run's journal, as the claim read it
	 * @param resultType the handler's return type, to read the result back as
	 * @return the earlier result, or empty when the delivery is no child or no attempt of its run
	 * journaled a result
	 */
	Optional<JournaledResult> earlierResult(WaitingTask task, StepJournal journal, Type resultType);

}
