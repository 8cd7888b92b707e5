package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a durable waits' row must show, task by task: an approved task committed once and deployed
 * (a deploy run again is judged by the row's own allowance for its DevOps agent, as in the other
 * rows); a rejected task completed with no commit and no deploy; every task's signal taken
 * ({@code RESUMED}, {@code BUFFERED} or {@code DUPLICATE}; in some rows not {@code BUFFERED}), none
 * refused ({@code TOO_LATE}, {@code NO_SUCH_TASK}); no task listed {@code WAITING} longer after its
 * signal was taken than the timer's {@code recheck-interval} and a few seconds' slack (the look
 * that finds a signal whose sender died before resuming its task). Dead-lettered tasks are left to
 * the row's own count.
 */
final class WaitVerdict {

	private final List<String> failures = new ArrayList<>();

	private int approved;

	private int rejected;

	private int rejectedWithSideEffect;

	private final Duration longestWaitingAfterTaken;

	private final Duration tolerance;

	/**
	 * Judges the row's tasks.
	 * @param signals the driver that signalled them
	 * @param sideEffects the commits and deploys
	 * @param deadLetters the dead-lettered task ids
	 * @param taskIds the row's task ids
	 * @param tolerance the longest a task may be listed {@code WAITING} after its signal was taken
	 * @param resumeOnly whether a signal taken must be answered {@code RESUMED} or {@code DUPLICATE}
	 */
	WaitVerdict(SignallingDriver signals, SideEffects sideEffects, Map<String, String> deadLetters,
			List<String> taskIds, Duration tolerance, boolean resumeOnly) {
		this.tolerance = tolerance;
		Map<String, String> taken = signals.taken();
		Map<String, Duration> waitingAfterTaken = signals.waitingAfterTaken();
		this.longestWaitingAfterTaken = waitingAfterTaken.values().stream().max(Duration::compareTo)
			.orElse(Duration.ZERO);
		waitingAfterTaken.forEach((id, longest) -> {
			if (longest.compareTo(tolerance) > 0) {
				this.failures.add("task " + id + " was still WAITING " + longest.toMillis() + " ms after its signal was "
						+ "taken (more than " + tolerance.toMillis() + " ms)");
			}
		});
		if (resumeOnly) {
			taken.forEach((id, answer) -> {
				if (!answer.equals("RESUMED") && !answer.equals("DUPLICATE")) {
					this.failures.add("the approval signal of " + id + " was answered " + answer
							+ ", not RESUMED or DUPLICATE");
				}
			});
		}
		signals.refused().forEach((id, answer) -> this.failures.add("the approval signal of " + id + " was refused: "
				+ answer));
		for (String id : taskIds) {
			if (deadLetters.containsKey(id)) {
				continue;
			}
			if (!taken.containsKey(id)) {
				this.failures.add("the approval signal of " + id + " was never taken");
			}
			int commits = sideEffects.commits().getOrDefault(id, List.of()).size();
			int deploys = sideEffects.deploys().getOrDefault(id, List.of()).size();
			if (signals.rejects(id)) {
				this.rejected++;
				if (commits + deploys > 0) {
					this.rejectedWithSideEffect++;
					this.failures.add("rejected task " + id + " has " + commits + " commit(s) and " + deploys
							+ " deploy(s)");
				}
			}
			else {
				this.approved++;
				if (commits != 1 || deploys == 0) {
					this.failures.add("approved task " + id + " has " + commits + " commit(s) and " + deploys
							+ " deploy(s), not one commit and its deploy");
				}
			}
		}
	}

	/** What went wrong, one line each; empty when the row passed. */
	List<String> failures() {
		return List.copyOf(this.failures);
	}

	/**
	 * The row's figures for its notes.
	 * @param signals the driver, for its answers
	 * @return one line
	 */
	String note(SignallingDriver signals) {
		return this.approved + " approved task(s), " + this.rejected + " rejected (" + this.rejectedWithSideEffect
				+ " with a commit or deploy); signal answers " + signals.answers() + "; " + signals.waitingAfterTaken().size()
				+ " task(s) listed WAITING after their signal was taken, longest " + this.longestWaitingAfterTaken.toMillis()
				+ " ms (allowed " + this.tolerance.toMillis() + " ms)";
	}

}
