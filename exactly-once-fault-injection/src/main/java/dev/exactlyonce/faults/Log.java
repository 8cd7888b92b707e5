package dev.exactlyonce.faults;

import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/**
 * The driver's progress output: timestamped lines on standard output.
 */
final class Log {

	private final long started = System.nanoTime();

	void line(String text) {
		System.out.println(LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + " [faults] " + text);
		System.out.flush();
	}

	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.started);
	}

}
