package dev.exactlyonce.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Writes a {@link Duration} the way it is written in {@code application.yml}: a whole number and
 * the largest unit that keeps it exact ({@code 30s}, {@code 1m}, {@code 1500ms}, {@code 2h},
 * {@code 7d}), which Spring Boot's simple duration style reads back to the same value. Messages
 * that name a duration property print its value with this rather than {@code PT1M}.
 */
public final class DurationText {

	private static final List<ChronoUnit> UNITS = List.of(ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES,
			ChronoUnit.SECONDS, ChronoUnit.MILLIS, ChronoUnit.MICROS);

	private static final List<String> SUFFIXES = List.of("d", "h", "m", "s", "ms", "us");

	private DurationText() {
	}

	/**
	 * The duration in its shortest exact form.
	 * @param duration the duration, or {@code null}
	 * @return its text, e.g. {@code 1m}; {@code 0s} for zero, {@code null} for {@code null}
	 */
	public static String of(Duration duration) {
		if (duration == null) {
			return null;
		}
		if (duration.isZero()) {
			return "0s";
		}
		for (int i = 0; i < UNITS.size(); i++) {
			Duration unit = UNITS.get(i).getDuration();
			if (isWholeMultiple(duration, unit)) {
				return duration.dividedBy(unit) + SUFFIXES.get(i);
			}
		}
		return duration.toNanos() + "ns";
	}

	private static boolean isWholeMultiple(Duration duration, Duration unit) {
		if (unit.getSeconds() > 0) {
			return duration.getNano() == 0 && duration.getSeconds() % unit.getSeconds() == 0;
		}
		return duration.getNano() % unit.getNano() == 0;
	}

}
