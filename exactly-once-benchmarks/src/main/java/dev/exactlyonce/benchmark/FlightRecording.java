package dev.exactlyonce.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.Locale;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JDK Flight Recorder recording of one measured run's timed window (first pull to last ack; not
 * the application context's start, the publishing or the warm-up round), with the JDK's
 * {@code profile} settings, Java execution samples every 1 ms, native ones every 5 ms and thread CPU
 * load every second, written to
 * {@code <dir>/<run>-<scenario>.jfr} when {@code -Dbenchmark.jfr=<dir>} is given. Read it with
 * {@code jfr print --events jdk.ExecutionSample} or {@code jfr summary}.
 */
final class FlightRecording {

	private static final String DIRECTORY = System.getProperty("benchmark.jfr", "");

	/** Set once the warm-up round is over: only measured runs are recorded. */
	private static volatile boolean measuring;

	private static int recorded;

	private final Recording recording;

	private FlightRecording(Recording recording) {
		this.recording = recording;
	}

	/** Records the runs from now on (the warm-up round is over). */
	static void measuring() {
		measuring = true;
	}

	/**
	 * Starts recording, when enabled and past the warm-up round.
	 * @return the recording, to {@link #stop(String)} at the end of the timed window
	 */
	static FlightRecording start() {
		if (DIRECTORY.isEmpty() || !measuring) {
			return new FlightRecording(null);
		}
		try {
			Recording recording = new Recording(Configuration.getConfiguration("profile"));
			// profile samples running Java threads every 10 ms (20 ms native): too few in a run of seconds
			recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
			recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(5));
			recording.enable("jdk.ThreadCPULoad").withPeriod(Duration.ofSeconds(1));
			recording.start();
			return new FlightRecording(recording);
		}
		catch (IOException | ParseException ex) {
			throw new IllegalStateException("cannot start a flight recording", ex);
		}
	}

	/**
	 * Stops recording and writes the file.
	 * @param label the run, for the file's name
	 */
	void stop(String label) {
		if (this.recording == null) {
			return;
		}
		try (Recording done = this.recording) {
			done.stop();
			Path directory = Files.createDirectories(Path.of(DIRECTORY));
			String name = String.format(Locale.ROOT, "%03d-%s.jfr", ++recorded,
					label.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-+$", ""));
			done.dump(directory.resolve(name));
			System.out.println("Flight recording: " + directory.resolve(name));
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot write a flight recording", ex);
		}
	}

}
