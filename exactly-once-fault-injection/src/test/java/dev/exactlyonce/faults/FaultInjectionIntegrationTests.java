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
 * load, one node of a 3-node cluster killed, and kills inside and between the marketing agent's
 * durable steps, the Redis and Firestore stores' servers killed or stalled, a consumer JVM sent
 * SIGTERM after its handler returned while the Redis server is stopped (its completion parked on
 * NATS), and a consumer JVM cut off by a real network partition (its own network namespace; skipped
 * with the reason printed when not root, which fails in CI). Every task must be committed and deployed once (or be dead-lettered with a
 * reason), with the first draft the model wrote; only the rows that name a window may re-run the
 * handler, commit again (no probe) or call the model again (zombie), never more often than faults
 * were injected.
 */
class FaultInjectionIntegrationTests {

	@Test
	void everyTaskRunsOnceUnderEveryFault() throws Exception {
		Path workDir = workDir();
		List<RowResult> results = new FaultSuite(SuiteProfile.quick(), workDir).run();
		String table = FaultSuite.table(results);
		System.out.println(table);
		Files.writeString(workDir.resolve("short-matrix.md"), table);

		assertThat(results).extracting(RowResult::row).containsExactlyElementsOf(SuiteProfile.quick().rows());
		SoftAssertions softly = everyRowHolds(results);
		RowResult handledParked = resultOf(results, FaultRow.KILL_HANDLED_DEAD_LETTER);
		softly.assertThat(handledParked.deadLettered())
			.as("HANDLED + dead-letter: every step was journaled, so the retry replays them instead of parking")
			.isZero();
		RowResult publisher = resultOf(results, FaultRow.PUBLISHER_KILL);
		softly.assertThat(publisher.republishedDuplicates()).as("republished tasks deduplicated by the stream")
			.isPositive();
		softly.assertAll();
	}

	/**
	 * The rows on PostgreSQL ({@code --store=jdbc}): the marketing agent's post is a row of
	 * {@code posts} written in the transaction of its completion record. Killed after that write and
	 * before the commit, or frozen there past the lease (a zombie whose completion is refused), or
	 * frozen anywhere in the handler: the handler may run again, its row commits once.
	 */
	@Test
	void transactionalBusinessWritesCommitOnceOnPostgres() throws Exception {
		Path workDir = workDir().resolveSibling("fault-injection-jdbc");
		List<FaultRow> rows = List.of(FaultRow.KILL_HANDLED_RETRY, FaultRow.ZOMBIE_RETRY, FaultRow.ZOMBIE_HANDLED_RETRY);
		List<RowResult> results = new FaultSuite(SuiteProfile.quick().withStoreType("jdbc").withRows(rows), workDir)
			.run();
		String table = FaultSuite.table(results);
		System.out.println(table);
		Files.writeString(workDir.resolve("short-matrix.md"), table);

		assertThat(results).extracting(RowResult::row).containsExactlyElementsOf(rows);
		SoftAssertions softly = everyRowHolds(results);
		for (RowResult result : results) {
			String row = result.row().name();
			softly.assertThat(result.posts().total()).as(row + " business rows").isEqualTo(result.tasks());
			softly.assertThat(result.posts().duplicates()).as(row + " duplicate business rows").isZero();
		}
		RowResult frozenAtHandled = resultOf(results, FaultRow.ZOMBIE_HANDLED_RETRY);
		softly.assertThat(frozenAtHandled.duplicates())
			.as("ZOMBIE_HANDLED_RETRY: each frozen handler wrote its row, which rolled back with its refused completion")
			.isPositive();
		softly.assertAll();
	}

	/**
	 * Consumers with {@code exactlyonce.listener.pipelined}: killed before the handler, after it,
	 * after the record written on a completion thread, racing that thread's ack, and under a
	 * nats-server restart with records in flight. Nothing lost or stuck; a handler re-run only where
	 * a JVM died with a second message's record being written (its steps replay).
	 */
	@Test
	void pipelinedListenersHoldTheKillPointsAndAServerRestart() throws Exception {
		Path workDir = workDir().resolveSibling("fault-injection-pipelined");
		List<FaultRow> rows = List.of(FaultRow.KILL_CLAIMED, FaultRow.KILL_HANDLED_RETRY, FaultRow.KILL_COMPLETED,
				FaultRow.KILL_DURING_ACK, FaultRow.NATS_RESTART);
		List<RowResult> results = new FaultSuite(SuiteProfile.quick().pipelinedCopy().withRows(rows), workDir).run();
		String table = FaultSuite.table(results);
		System.out.println(table);
		Files.writeString(workDir.resolve("short-matrix.md"), table);

		assertThat(results).extracting(RowResult::row).containsExactlyElementsOf(rows);
		assertThat(results).allSatisfy((result) -> assertThat(result.pipelined()).isTrue());
		everyRowHolds(results).assertAll();
	}

	/** Where the short suite works ({@code faults.work-dir}); the other runs use its siblings. */
	private static Path workDir() {
		return Path.of(System.getProperty("faults.work-dir", "target/fault-injection")).toAbsolutePath();
	}

	private static RowResult resultOf(List<RowResult> results, FaultRow row) {
		return results.stream().filter((result) -> result.row() == row).findFirst().orElseThrow();
	}

	/** What every row must hold; the caller adds its own assertions and calls {@code assertAll}. */
	private static SoftAssertions everyRowHolds(List<RowResult> results) {
		SoftAssertions softly = new SoftAssertions();
		for (RowResult result : results) {
			String row = result.row().name();
			if (result.skipped() != null) {
				System.out.println("SKIPPED " + row + ": " + result.skipped());
				softly.assertThat(FaultSuite.skipsFail()).as(row + " skipped in CI: " + result.skipped()).isFalse();
				continue;
			}
			SideEffects done = result.sideEffects();
			softly.assertThat(result.injections()).as(row + " injections").isPositive();
			softly.assertThat(result.lost()).as(row + " lost tasks").isZero();
			softly.assertThat(result.stuck()).as(row + " tasks stuck in the stream").isZero();
			softly.assertThat(result.unexpected()).as(row + " unexpected").isEmpty();
			softly.assertThat(result.duplicates()).as(row + " handler re-runs")
				.isLessThanOrEqualTo(result.row().mayDuplicate(result.pipelined()) ? result.injections() : 0);
			softly.assertThat(done.duplicateCommits()).as(row + " duplicate commits")
				.isLessThanOrEqualTo(result.row().mayRepeatCommit() ? result.injections() : 0);
			softly.assertThat(done.extraDrafts()).as(row + " model calls beyond one per task")
				.isLessThanOrEqualTo(result.row().mayRepeatModelCall() ? result.injections() : 0);
			softly.assertThat(done.notFirstDraft()).as(row + " commits of a draft other than the first")
				.isLessThanOrEqualTo(result.row().mayRepeatModelCall() ? result.injections() : 0);
			softly.assertThat(done.duplicateDeployMessages()).as(row + " deploy tasks stored twice").isZero();
			softly.assertThat(done.duplicateDeploys()).as(row + " deploys re-run by the DevOps handler")
				.isLessThanOrEqualTo(result.row().mayRepeatDeploy() ? result.injections() : 0);
		}
		return softly;
	}

}
