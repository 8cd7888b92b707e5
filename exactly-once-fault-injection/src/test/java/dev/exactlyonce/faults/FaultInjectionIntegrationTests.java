package dev.exactlyonce.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short fault-injection suite against real processes: sample-agent-app JVMs halted at every
 * pipeline point, paused past their lease, a publisher killed mid-batch, nats-server killed under
 * load, and one node of a 3-node cluster killed. Every task must run exactly once (or be
 * dead-lettered with a reason); only the two rows that name the side-effect window may re-run a
 * task, and never more often than faults were injected.
 */
class FaultInjectionIntegrationTests {

	@Test
	void everyTaskRunsOnceUnderEveryFault() throws Exception {
		Path workDir = Path.of(System.getProperty("faults.work-dir", "target/fault-injection")).toAbsolutePath();
		List<RowResult> results = new FaultSuite(SuiteProfile.quick(), workDir).run();
		String table = FaultSuite.table(results);
		System.out.println(table);
		Files.writeString(workDir.resolve("short-matrix.md"), table);

		assertThat(results).extracting(RowResult::row).containsExactly(FaultRow.values());
		SoftAssertions softly = new SoftAssertions();
		for (RowResult result : results) {
			String row = result.row().name();
			softly.assertThat(result.injections()).as(row + " injections").isPositive();
			softly.assertThat(result.lost()).as(row + " lost tasks").isZero();
			softly.assertThat(result.unexpected()).as(row + " unexpected").isEmpty();
			if (result.row().mayDuplicate()) {
				softly.assertThat(result.duplicates()).as(row + " duplicates").isLessThanOrEqualTo(result.injections());
			}
			else {
				softly.assertThat(result.duplicates()).as(row + " duplicates").isZero();
			}
		}
		RowResult parked = results.get(FaultRow.KILL_HANDLED_DEAD_LETTER.ordinal());
		softly.assertThat(parked.deadLettered()).as("HANDLED + dead-letter parks each halted task")
			.isEqualTo(parked.injections());
		RowResult publisher = results.get(FaultRow.PUBLISHER_KILL.ordinal());
		softly.assertThat(publisher.republishedDuplicates()).as("republished tasks deduplicated by the stream")
			.isPositive();
		softly.assertAll();
	}

}
