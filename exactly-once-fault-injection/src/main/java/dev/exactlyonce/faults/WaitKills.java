package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The injections of {@link FaultRow.Fault#WAIT_KILL}: {@code kill -9} of a started consumer JVM
 * while tasks wait for their signals (the driver's last look found some), once a task completed
 * since the previous kill and at most one JVM per {@link #SPACING}, taking turns; the row restarts it like any dead JVM. The signals then reach a
 * survivor, or the restarted JVM when none survived.
 */
final class WaitKills {

	private static final Duration SPACING = Duration.ofSeconds(2);

	private final int planned;

	private final Set<ConsumerSlot> killed = new HashSet<>();

	private long nextAt;

	private int done;

	private int lastProgress;

	WaitKills(int planned) {
		this.planned = planned;
	}

	/**
	 * Kills one ready consumer JVM when one is due.
	 * @param slots the consumers
	 * @param tasksWaiting how many tasks the driver last found waiting
	 * @param progress the tasks completed so far (ledger lines)
	 * @return whether it killed one (an injection)
	 */
	boolean poll(List<ConsumerSlot> slots, int tasksWaiting, int progress) {
		long now = System.nanoTime();
		if (this.done >= this.planned || tasksWaiting == 0 || now < this.nextAt || progress <= this.lastProgress) {
			return false;
		}
		List<ConsumerSlot> ready = slots.stream().filter((slot) -> slot.alive() && slot.ready()).toList();
		if (ready.isEmpty()) {
			return false;
		}
		ConsumerSlot victim = ready.get(this.done % ready.size());
		victim.kill();
		this.killed.add(victim);
		this.lastProgress = progress;
		this.done++;
		this.nextAt = now + SPACING.toNanos();
		return true;
	}

	/**
	 * Whether a dead JVM was one this killed (its exit is the injection, not a failure); forgets it.
	 * @param slot the slot whose JVM died
	 * @return whether it was killed here
	 */
	boolean exited(ConsumerSlot slot) {
		return this.killed.remove(slot);
	}

}
