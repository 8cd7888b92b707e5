package dev.exactlyonce.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The holders of a limit as the consumer JVMs recorded them ({@code holds.log}, written by the
 * sample's marketing agent with {@code sample.limit} set): one {@link Hold} per handler run, from its
 * fsynced {@code start} line (the slot was taken before) to its fsynced {@code end} line (the slot is
 * given back after). A run whose JVM the driver killed has no end: it is held until the moment the
 * driver saw that JVM dead. Counting these intervals can only find more holders than the limit saw,
 * never fewer.
 */
final class Holds {

	private final List<Hold> holds;

	private final List<String> problems;

	private Holds(List<Hold> holds, List<String> problems) {
		this.holds = holds;
		this.problems = problems;
	}

	/**
	 * One handler run.
	 * @param task the task id
	 * @param instance the consumer incarnation that ran it ({@code c1.3})
	 * @param start when its start line was written
	 * @param end when its end line was written, or when its JVM was seen dead
	 * @param killed whether it was cut short by a kill (no end line)
	 */
	record Hold(String task, String instance, Instant start, Instant end, boolean killed) {
	}

	/**
	 * Reads every slot's {@code holds.log}.
	 * @param slots the consumer slots
	 * @param kills when each killed incarnation was seen dead
	 * @param rowEnd the end of the row: the end of a run with neither end line nor kill (a problem)
	 * @return the holds, by start
	 */
	static Holds read(List<ConsumerSlot> slots, Map<String, Instant> kills, Instant rowEnd) {
		List<Hold> holds = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		for (ConsumerSlot slot : slots) {
			Map<String, Deque<Instant>> open = new LinkedHashMap<>();
			for (String line : Evidence.lines(slot.directory().resolve("holds.log"))) {
				String[] fields = line.split(" ");
				if (fields.length != 4) {
					continue; // a line cut by a kill
				}
				String run = fields[1] + " " + fields[2];
				Instant at = Instant.parse(fields[3]);
				if (fields[0].equals("start")) {
					open.computeIfAbsent(run, (key) -> new ArrayDeque<>()).add(at);
				}
				else {
					Deque<Instant> starts = open.get(run);
					if (starts == null || starts.isEmpty()) {
						problems.add("end without start: " + line);
						continue;
					}
					holds.add(new Hold(fields[1], fields[2], starts.poll(), at, false));
				}
			}
			open.forEach((run, starts) -> {
				String[] names = run.split(" ");
				Instant killed = kills.get(names[1]);
				for (Instant start : starts) {
					if (killed == null) {
						problems.add("task " + names[0] + " started in " + names[1] + " at " + start
								+ " has no end and its JVM was not killed");
					}
					holds.add(new Hold(names[0], names[1], start, (killed != null) ? killed : rowEnd, killed != null));
				}
			});
		}
		holds.sort(Comparator.comparing(Hold::start));
		return new Holds(holds, problems);
	}

	/**
	 * How many runs the current incarnation of a slot holds now (started, not ended).
	 * @param slot the slot
	 * @return its open runs
	 */
	static int open(ConsumerSlot slot) {
		String instance = slot.instanceId();
		int open = 0;
		for (String line : Evidence.lines(slot.directory().resolve("holds.log"))) {
			String[] fields = line.split(" ");
			if (fields.length == 4 && fields[2].equals(instance)) {
				open += fields[0].equals("start") ? 1 : -1;
			}
		}
		return open;
	}

	List<Hold> holds() {
		return this.holds;
	}

	/** End lines without a start, runs without an end whose JVM was not killed. */
	List<String> problems() {
		return this.problems;
	}

	/** Starts beyond one per task: runs again after a kill (or a retry). */
	int reruns() {
		Map<String, Integer> perTask = new HashMap<>();
		this.holds.forEach((hold) -> perTask.merge(hold.task(), 1, Integer::sum));
		return perTask.values().stream().mapToInt((count) -> count - 1).sum();
	}

	/**
	 * The most holders each key had at once: the intervals swept by time, an end before a start at
	 * the same instant (a slot given back is taken again after).
	 * @param keyOf the limit key of a task
	 * @param limit the concurrency limit, for counting the starts above it
	 * @return per key, the maximum and the starts that went over the limit
	 */
	Map<String, Overlap> overlaps(Function<String, String> keyOf, int limit) {
		Map<String, Overlap> overlaps = new TreeMap<>();
		eventsByKey(keyOf).forEach((key, events) -> {
			int current = 0;
			int max = 0;
			int over = 0;
			for (Event event : events) {
				current += event.delta();
				max = Math.max(max, current);
				over += (event.delta() > 0 && current > limit) ? 1 : 0;
			}
			overlaps.put(key, new Overlap(events.size() / 2, max, over));
		});
		return overlaps;
	}

	/**
	 * How long the slot of each killed holder stayed taken, as seen from outside: from the kill to the
	 * first start of its key that needed it (the live holders plus the dead ones not yet given back
	 * would be above the limit). A dead slot no later start needed is not measured, and the figure is
	 * an upper bound when nobody wanted the slot at once.
	 * @param keyOf the limit key of a task
	 * @param limit the concurrency limit
	 * @return the recovery of each dead slot that was taken again
	 */
	List<Duration> slotRecoveries(Function<String, String> keyOf, int limit) {
		List<Duration> recoveries = new ArrayList<>();
		eventsByKey(keyOf).values().forEach((events) -> {
			Deque<Instant> dead = new ArrayDeque<>();
			int live = 0;
			for (Event event : events) {
				live += event.delta();
				if (event.delta() < 0 && event.hold().killed()) {
					dead.add(event.at());
				}
				else if (event.delta() > 0 && live + dead.size() > limit && !dead.isEmpty()) {
					recoveries.add(Duration.between(dead.poll(), event.at()));
				}
			}
		});
		return recoveries;
	}

	/** Each key's starts and ends in time order, an end before a start at the same instant. */
	private Map<String, List<Event>> eventsByKey(Function<String, String> keyOf) {
		Map<String, List<Event>> byKey = new TreeMap<>();
		for (Hold hold : this.holds) {
			List<Event> events = byKey.computeIfAbsent(keyOf.apply(hold.task()), (key) -> new ArrayList<>());
			events.add(new Event(hold.start(), 1, hold));
			events.add(new Event(hold.end(), -1, hold));
		}
		byKey.values().forEach((events) -> events.sort(Comparator.comparing(Event::at).thenComparingInt(Event::delta)));
		return byKey;
	}

	/** The start lines' times, in order. */
	List<Instant> starts() {
		return this.holds.stream().map(Hold::start).sorted().toList();
	}

	/**
	 * A key's holders.
	 * @param runs handler runs of the key
	 * @param max the most at once
	 * @param over starts that made them more than the limit
	 */
	record Overlap(int runs, int max, int over) {
	}

	private record Event(Instant at, int delta, Hold hold) {
	}

}
