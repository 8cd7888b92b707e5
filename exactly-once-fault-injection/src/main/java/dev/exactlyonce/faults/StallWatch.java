package dev.exactlyonce.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Notices deliveries held at a row's chaos point ({@code sample.chaos.stall}): each holds its thread
 * there after a line in its consumer's chaos log, for the driver to act on that JVM meanwhile.
 */
final class StallWatch {

	private final Map<ConsumerSlot, Integer> seen = new HashMap<>();

	/**
	 * The consumer JVMs, alive and not paused, whose chaos log got a line since the last look.
	 * @param slots the row's consumers
	 * @return those with a delivery held at the point now
	 */
	List<ConsumerSlot> newlyStalled(List<ConsumerSlot> slots) {
		List<ConsumerSlot> stalled = new ArrayList<>();
		for (ConsumerSlot slot : slots) {
			int stalls = Evidence.chaosHalts(List.of(slot)).size();
			if (stalls > this.seen.getOrDefault(slot, 0)) {
				this.seen.put(slot, stalls);
				if (slot.alive() && !slot.stopped()) {
					stalled.add(slot);
				}
			}
		}
		return stalled;
	}

}
