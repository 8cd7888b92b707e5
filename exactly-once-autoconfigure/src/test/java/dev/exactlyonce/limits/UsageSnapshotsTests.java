package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.StoreUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The limits' usage is read from their bucket at most once per max age, however often health, the
 * gauges and the dashboard ask; the gauges never wait for a read.
 */
class UsageSnapshotsTests {

	private final AtomicInteger reads = new AtomicInteger();

	private final List<LimitUsage> usage = List.of(new LimitUsage(new LimitDefinition("deploys", 2, 0, null), 1, 2, 3,
			0, null, List.of(), Instant.EPOCH));

	@Test
	void healthReadsOnceWithinTheMaxAge() {
		UsageSnapshots snapshots = new UsageSnapshots(this::read, Duration.ofMinutes(1));
		assertThat(snapshots.current()).isEqualTo(this.usage);
		assertThat(snapshots.current()).isEqualTo(this.usage);
		assertThat(snapshots.last()).contains(this.usage);
		assertThat(this.reads).hasValue(1);
	}

	@Test
	void gaugesAnswerAtOnceAndReadInTheBackground() {
		UsageSnapshots snapshots = new UsageSnapshots(this::read, Duration.ofMinutes(1));
		assertThat(snapshots.last()).as("nothing read yet").isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> snapshots.last().isPresent());
		assertThat(snapshots.last()).contains(this.usage);
		assertThat(this.reads).hasValue(1);
	}

	@Test
	void aFailedReadIsAnsweredAsSuchUntilTheNextRead() {
		UsageSnapshots snapshots = new UsageSnapshots(() -> {
			this.reads.incrementAndGet();
			throw new StoreUnavailableException("NATS did not answer", null);
		}, Duration.ZERO);
		assertThatThrownBy(snapshots::current).isInstanceOf(StoreUnavailableException.class)
			.hasMessage("NATS did not answer");
		assertThatThrownBy(snapshots::current).isInstanceOf(StoreUnavailableException.class);
		assertThat(this.reads).as("a max age of zero reads every time").hasValue(2);
	}

	private List<LimitUsage> read() {
		this.reads.incrementAndGet();
		return this.usage;
	}

}
