package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A {@link StoreClock} that reads the server's time through a {@link ServerTimeProbe} and carries
 * it forward on this JVM's monotonic clock, so this instance's wall clock (however wrong, however
 * stepped) never enters a lease decision. The server stamped the probe between sending and
 * answering, so the server's time is known to within the probe's round trip; the interval also
 * widens by {@value #DRIFT_PPM} ppm of the time since, for monotonic clocks that run at slightly
 * different rates. Measured again when older than {@link #REFRESH_AFTER}, with
 * {@value #PROBES} probes, of which the narrowest is kept, and kept only while it is narrower than
 * the previous measurement has become (a slow first request, a stalled probe never widen it much).
 * Every claim reads it; a lock, not {@code synchronized}, guards the measuring, so a virtual thread
 * waiting for the probes' round trips never pins its carrier (Java 21 to 23).
 */
public final class MeasuredStoreClock implements StoreClock {

	/** How long a measurement is used before the next one. */
	private static final Duration REFRESH_AFTER = Duration.ofMinutes(1);

	/** How far two monotonic clocks' rates may differ, in parts per million. */
	static final long DRIFT_PPM = 100;

	private static final int PROBES = 3;

	private final Clock local;

	private final ServerTimeProbe probe;

	private final LongSupplier nanoTime;

	private final ReentrantLock measuring = new ReentrantLock();

	private Measurement last;

	/**
	 * Creates the clock; the first lease decision measures.
	 * @param local this instance's own clock, used only to express store instants to callers
	 * @param probe the request the server stamps
	 */
	public MeasuredStoreClock(Clock local, ServerTimeProbe probe) {
		this(local, probe, System::nanoTime);
	}

	/** Creates the clock on a given monotonic time source (tests: probes answered after a set delay). */
	MeasuredStoreClock(Clock local, ServerTimeProbe probe, LongSupplier nanoTime) {
		this.local = local;
		this.probe = probe;
		this.nanoTime = nanoTime;
	}

	@Override
	public Instant earliest() {
		Measurement measurement = current();
		long now = this.nanoTime.getAsLong();
		return measurement.server().plusNanos(now - measurement.answered() - drift(measurement, now));
	}

	@Override
	public Instant latest() {
		Measurement measurement = current();
		long now = this.nanoTime.getAsLong();
		return measurement.server().plusNanos(now - measurement.sent() + drift(measurement, now));
	}

	@Override
	public Instant toLocal(Instant storeInstant) {
		return this.local.instant().plus(Duration.between(earliest(), storeInstant));
	}

	private Measurement current() {
		this.measuring.lock();
		try {
			if (this.last == null || this.nanoTime.getAsLong() - this.last.answered() > REFRESH_AFTER.toNanos()) {
				this.last = narrower(this.last, measure());
			}
			return this.last;
		}
		finally {
			this.measuring.unlock();
		}
	}

	/** The narrowest of {@value #PROBES} probes. */
	private Measurement measure() {
		Measurement best = null;
		for (int attempt = 0; attempt < PROBES; attempt++) {
			long sent = this.nanoTime.getAsLong();
			Supplier<Instant> stamp = this.probe.send();
			long answered = this.nanoTime.getAsLong();
			Instant server = stamp.get();
			if (server != null) {
				best = narrower(best, new Measurement(server, sent, answered));
			}
		}
		if (best == null) {
			throw new StoreUnavailableException("The store's server time could not be read: its probe was replaced "
					+ PROBES + " times before it was read back", null);
		}
		return best;
	}

	private Measurement narrower(Measurement previous, Measurement next) {
		if (previous == null) {
			return next;
		}
		long now = this.nanoTime.getAsLong();
		return (previous.width(now) <= next.width(now)) ? previous : next;
	}

	private static long drift(Measurement measurement, long now) {
		return (now - measurement.sent()) / 1_000_000 * DRIFT_PPM;
	}

	/** The server's stamp and this JVM's monotonic time around the request it stamped. */
	private record Measurement(Instant server, long sent, long answered) {

		/** How wide the interval this measurement gives is at {@code now}, in nanoseconds. */
		long width(long now) {
			return this.answered - this.sent + 2 * drift(this, now);
		}

	}

}
