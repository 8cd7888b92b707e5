package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Holds} and the rate window of {@link LimitRows}: how the limits' rows count
 * holders, dead slots and starts from the consumers' {@code holds.log} lines.
 */
class HoldsTests {

	private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

	private static final Function<String, String> ONE_KEY = (task) -> "k0";

	@TempDir
	Path directory;

	@Test
	void aStartAtTheInstantAnotherEndsIsNotAnOverlap() throws IOException {
		Holds holds = read(Map.of(), "start a c1.1 " + at(0), "start b c1.1 " + at(0), "end a c1.1 " + at(5),
				"start c c1.1 " + at(5), "end b c1.1 " + at(6), "end c c1.1 " + at(7));

		assertThat(holds.overlaps(ONE_KEY, 2)).containsEntry("k0", new Holds.Overlap(3, 2, 0));
		assertThat(holds.problems()).isEmpty();
	}

	@Test
	void aKilledHolderIsHeldUntilItsJvmWasSeenDead() throws IOException {
		Holds holds = read(Map.of("c1.1", T0.plusSeconds(10)), "start a c1.1 " + at(0), "start b c1.1 " + at(1),
				"end b c1.1 " + at(2), "start c c1.1 " + at(3), "start d c1.1 " + at(9));

		assertThat(holds.overlaps(ONE_KEY, 2)).containsEntry("k0", new Holds.Overlap(4, 3, 1));
		assertThat(holds.holds()).filteredOn(Holds.Hold::killed).extracting(Holds.Hold::end).containsOnly(T0.plusSeconds(10));
	}

	@Test
	void aRunWithoutEndInAJvmNotKilledIsAProblem() throws IOException {
		Holds holds = read(Map.of(), "start a c1.1 " + at(0));

		assertThat(holds.problems()).singleElement().asString().contains("has no end and its JVM was not killed");
	}

	@Test
	void aDeadSlotRecoversAtTheFirstStartThatNeedsIt() throws IOException {
		// a and b hold both slots; a's JVM dies at 2 s; c starts at 3 s after b ended (b's own slot),
		// d at 12 s beside c: only then is a's slot taken again
		Holds holds = read(Map.of("c1.1", T0.plusSeconds(2)), "start a c1.1 " + at(0), "start b c2.1 " + at(1),
				"end b c2.1 " + at(3), "start c c2.1 " + at(3), "start d c2.1 " + at(12), "end c c2.1 " + at(14),
				"end d c2.1 " + at(15));

		assertThat(holds.slotRecoveries(ONE_KEY, 2)).containsExactly(Duration.ofSeconds(10));
		assertThat(holds.reruns()).isZero();
	}

	@Test
	void theRateWindowCountsStartsWithinAnyHalfOpenMinute() {
		List<Instant> starts = List.of(T0, T0.plusSeconds(30), T0.plusSeconds(60), T0.plusMillis(60_500),
				T0.plusSeconds(89));

		assertThat(LimitRows.mostWithin(starts, Duration.ofMinutes(1))).isEqualTo(4); // [30 s, 90 s)
		assertThat(LimitRows.mostWithin(starts, Duration.ofSeconds(59))).isEqualTo(3);
		assertThat(LimitRows.mostWithin(starts, Duration.ofSeconds(29))).isEqualTo(2);
	}

	private Holds read(Map<String, Instant> kills, String... lines) throws IOException {
		Path c1 = this.directory.resolve("c1");
		Path c2 = this.directory.resolve("c2");
		Files.createDirectories(c1);
		Files.createDirectories(c2);
		Files.write(c1.resolve("holds.log"), List.of(lines).stream().filter((line) -> line.contains(" c1.")).toList());
		Files.write(c2.resolve("holds.log"), List.of(lines).stream().filter((line) -> line.contains(" c2.")).toList());
		List<ConsumerSlot> slots = List.of(new ConsumerSlot("c1", c1, null, Map.of()),
				new ConsumerSlot("c2", c2, null, Map.of()));
		return Holds.read(slots, kills, T0.plusSeconds(100));
	}

	private static String at(int seconds) {
		return T0.plusSeconds(seconds).toString();
	}

}
