package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link MeasuredStoreClock}: the server's time as an interval, from probes the "server"
 * (here: this JVM's clock shifted far away) stamps while they are under way.
 */
class MeasuredStoreClockTests {

	private static final Duration SERVER_AHEAD = Duration.ofHours(3);

	private final Clock localFarBehind = Clock.offset(Clock.systemUTC(), Duration.ofDays(-1));

	@Test
	void intervalContainsTheServersTimeWhateverThisInstancesWallClockSays() {
		MeasuredStoreClock clock = new MeasuredStoreClock(this.localFarBehind, stamped());

		Instant earliest = clock.earliest();
		Instant server = serverNow();
		Instant latest = clock.latest();

		assertThat(earliest).isBeforeOrEqualTo(server);
		assertThat(latest).isAfterOrEqualTo(server);
		assertThat(Duration.between(earliest, latest)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void storeInstantsAreGivenOnThisInstancesClockNoEarlierThanTheyCome() {
		MeasuredStoreClock clock = new MeasuredStoreClock(this.localFarBehind, stamped());
		Instant leaseEnd = serverNow().plusSeconds(30);

		Instant local = clock.toLocal(leaseEnd);

		assertThat(Duration.between(this.localFarBehind.instant(), local)).isBetween(Duration.ofSeconds(29),
				Duration.ofSeconds(31));
	}

	@Test
	void theNarrowestProbeIsKeptSoOneSlowAnswerDoesNotWidenTheInterval() {
		Deque<Duration> delays = new ArrayDeque<>();
		delays.add(Duration.ofMillis(300));
		delays.add(Duration.ZERO);
		delays.add(Duration.ofMillis(300));
		AtomicLong nanos = new AtomicLong();
		Instant serverAtStart = serverNow();
		MeasuredStoreClock clock = new MeasuredStoreClock(this.localFarBehind, () -> {
			Instant stamp = serverAtStart.plusNanos(nanos.get());
			nanos.addAndGet((delays.isEmpty() ? Duration.ZERO : delays.poll()).toNanos());
			return () -> stamp;
		}, nanos::get);

		assertThat(Duration.between(clock.earliest(), clock.latest())).as("narrower than the slow probes' 300 ms")
			.isLessThan(Duration.ofMillis(250));
	}

	@Test
	void aProbeReplacedBeforeItWasReadBackIsSentAgain() {
		AtomicInteger sent = new AtomicInteger();
		MeasuredStoreClock clock = new MeasuredStoreClock(this.localFarBehind, () -> {
			Instant stamp = serverNow();
			return (sent.incrementAndGet() == 1) ? () -> null : () -> stamp;
		});

		assertThat(clock.earliest()).isBeforeOrEqualTo(serverNow());
		assertThat(sent).hasValue(3);
	}

	@Test
	void noReadableProbeIsAnUnavailableStore() {
		MeasuredStoreClock clock = new MeasuredStoreClock(this.localFarBehind, () -> () -> null);

		assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(clock::earliest)
			.withMessageContaining("server time could not be read");
	}

	private static ServerTimeProbe stamped() {
		return () -> {
			Instant stamp = serverNow();
			return () -> stamp;
		};
	}

	private static Instant serverNow() {
		return Instant.now().plus(SERVER_AHEAD);
	}

}
