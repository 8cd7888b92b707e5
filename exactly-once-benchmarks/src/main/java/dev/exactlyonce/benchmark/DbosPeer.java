package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.Queue;
import dev.dbos.transact.workflow.Workflow;

import dev.exactlyonce.test.ServerProcess;

/**
 * DBOS Transact for Java on its own PostgreSQL database: each task is a workflow of three
 * {@code runStep}s, handed over by enqueueing it on a queue with worker concurrency = the row's
 * concurrency, polled every {@link #POLLING} (DBOS's default is 1 s, which caps a queue at a few
 * tasks a second; its docs name the polling interval as the setting to lower for throughput).
 * A waiting task ({@link PeerTask#waitingTask}) {@code recv}s {@link PeerTask#SIGNAL}, which
 * {@code send} delivers. Everything else is DBOS's default (a Hikari pool of 10 connections, LISTEN/NOTIFY on).
 */
final class DbosPeer implements PeerSystem {

	/** The queue's polling interval. */
	static final Duration POLLING = Duration.ofMillis(10);

	private final String url;

	private final String user;

	private final List<ServerProcess> servers;

	private final String database;

	/**
	 * Creates the row.
	 * @param url the JDBC URL of DBOS's database
	 * @param user the user to connect as (trust authentication)
	 * @param servers the PostgreSQL server, charged with its CPU time (empty in a crash-resume worker)
	 * @param database the database's name
	 */
	DbosPeer(String url, String user, List<ServerProcess> servers, String database) {
		this.url = url;
		this.user = user;
		this.servers = servers;
		this.database = database;
	}

	@Override
	public String label() {
		return "dbos (PostgreSQL 15)";
	}

	@Override
	public List<ServerProcess> servers() {
		return this.servers;
	}

	@Override
	public String database() {
		return this.database;
	}

	@Override
	public List<String> workerArguments() {
		return List.of("dbos", this.url, this.user);
	}

	@Override
	public Workers start(String scenario, int concurrency, int workMillis,
			AtomicReference<TaskCompletions> completions) {
		DBOSConfig config = DBOSConfig.defaults("exactly-once-peers")
			.withDatabaseUrl(this.url)
			.withDbUser(this.user)
			.withDbPassword("")
			.disableAdminServer();
		DBOS dbos = new DBOS(config);
		Queue queue = new Queue("peers-" + scenario).withWorkerConcurrency(concurrency).withPollingInterval(POLLING);
		dbos.registerQueue(queue);
		Tasks tasks = dbos.registerProxy(Tasks.class, new DbosTasks(dbos, workMillis, completions));
		dbos.launch();
		return new Workers() {

			@Override
			public void handOver(String taskId) {
				dbos.startWorkflow(() -> tasks.run(taskId), new StartWorkflowOptions(queue).withWorkflowId(taskId));
			}

			@Override
			public void signal(String taskId) {
				dbos.send(taskId, "ok", PeerTask.SIGNAL);
			}

			@Override
			public void close() {
				dbos.close();
			}

		};
	}

	/** The task as a DBOS workflow. */
	public interface Tasks {

		/**
		 * Runs the task's three steps.
		 * @param taskId the task
		 */
		void run(String taskId);

	}

	/** The workflow's implementation: {@link PeerTask}'s steps as {@code runStep}s. */
	static final class DbosTasks implements Tasks {

		private final DBOS dbos;

		private final int workMillis;

		private final AtomicReference<TaskCompletions> completions;

		DbosTasks(DBOS dbos, int workMillis, AtomicReference<TaskCompletions> completions) {
			this.dbos = dbos;
			this.workMillis = workMillis;
			this.completions = completions;
		}

		@Override
		@Workflow
		public void run(String taskId) {
			if (PeerTask.arrivesAtWait(taskId)) {
				this.dbos.recv(PeerTask.SIGNAL, Duration.ofHours(1));
				PeerTask.finished(this.completions, taskId);
				return;
			}
			for (int step = 1; step <= PeerTask.STEPS; step++) {
				int number = step;
				this.dbos.runStep(() -> PeerTask.step(taskId, number, this.workMillis), "step" + step);
			}
			PeerTask.finished(this.completions, taskId);
		}

	}

}
