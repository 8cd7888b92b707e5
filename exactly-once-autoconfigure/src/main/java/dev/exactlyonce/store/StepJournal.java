package dev.exactlyonce.store;

import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonCreator;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * The steps a task's attempts journaled, in the order they were first started; one entry per step
 * name, replaced in place when a later attempt writes the step again. Stored with the key's
 * {@link IdempotencyRecord}, carried over when a failed or abandoned attempt is claimed again, and
 * kept with the completion record. Serialised as a JSON array of {@link StepRecord}s.
 *
 * @param steps the entries, in order
 */
@JsonSerialize(using = StepJournalSerializer.class)
public record StepJournal(List<StepRecord> steps) {

	/** The journal of a task that journaled no step. */
	public static final StepJournal EMPTY = new StepJournal(List.of());

	/**
	 * Creates a journal.
	 * @param steps the entries, in order; {@code null} for none
	 */
	@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
	public StepJournal(List<StepRecord> steps) {
		this.steps = (steps != null) ? List.copyOf(steps) : List.of();
	}

	/**
	 * The entry of a step.
	 * @param name the step name
	 * @return the entry, or empty when the step was never journaled
	 */
	public Optional<StepRecord> find(String name) {
		return this.steps.stream().filter((step) -> step.name().equals(name)).findFirst();
	}

	/**
	 * This journal with an entry written: replacing the entry of the same name where it is, or
	 * appended.
	 * @param step the entry
	 * @return the new journal
	 */
	public StepJournal with(StepRecord step) {
		int index = indexOf(step.name());
		StepRecord[] written = this.steps.toArray(new StepRecord[this.steps.size() + ((index >= 0) ? 0 : 1)]);
		written[(index >= 0) ? index : written.length - 1] = step;
		return new StepJournal(List.of(written));
	}

	/**
	 * The last step that was started and neither finished nor failed: where an attempt that died
	 * mid-work was.
	 * @return the step name, or empty
	 */
	public Optional<String> lastUnfinished() {
		for (int i = this.steps.size() - 1; i >= 0; i--) {
			if (this.steps.get(i).state() == StepState.STARTED) {
				return Optional.of(this.steps.get(i).name());
			}
		}
		return Optional.empty();
	}

	/**
	 * Whether no step was journaled.
	 * @return {@code true} for an empty journal
	 */
	public boolean isEmpty() {
		return this.steps.isEmpty();
	}

	/** Where a step's entry is: searched from the end (a step's entries follow each other), hashes first. */
	private int indexOf(String name) {
		int hash = name.hashCode();
		for (int i = this.steps.size() - 1; i >= 0; i--) {
			String candidate = this.steps.get(i).name();
			if (candidate.hashCode() == hash && candidate.equals(name)) {
				return i;
			}
		}
		return -1;
	}

}
