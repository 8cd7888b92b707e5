package dev.exactlyonce.benchmark;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.exactlyonce.test.ServerProcess;

/**
 * One row of {@link PeersBenchmark}: a system that runs {@link PeerTask}s handed over durably,
 * started once per concurrency and step work.
 */
interface PeerSystem {

	/**
	 * The row's name in the table.
	 * @return e.g. {@code dbos (PostgreSQL 15)}
	 */
	String label();

	/**
	 * The server processes this row's tasks use, whose CPU time is charged to them.
	 * @return the servers
	 */
	List<ServerProcess> servers();

	/**
	 * The PostgreSQL database whose statements the row's tasks cost, if it uses one.
	 * @return the database name, or {@code null}
	 */
	default String database() {
		return null;
	}

	/**
	 * The arguments that start this row's workers in a {@link CrashResumeWorker} JVM.
	 * @return the arguments after {@code first|resume tasks}
	 */
	List<String> workerArguments();

	/**
	 * Starts workers that run tasks at this concurrency, each step doing this much work.
	 * @param scenario e.g. {@code c8-w0}, unique per start (a queue or consumer name)
	 * @param concurrency tasks run at once
	 * @param workMillis work per step
	 * @param completions where the tasks report their end
	 * @return the started workers
	 * @throws Exception when they cannot start
	 */
	Workers start(String scenario, int concurrency, int workMillis, AtomicReference<TaskCompletions> completions)
			throws Exception;

	/** Started workers and the way tasks are handed over to them. */
	interface Workers extends AutoCloseable {

		/**
		 * Hands a task over durably (returns once the system has stored it).
		 * @param taskId the task's unique id
		 * @throws Exception when it could not be handed over
		 */
		void handOver(String taskId) throws Exception;

		/**
		 * Sends {@link PeerTask#SIGNAL} to a waiting task.
		 * @param taskId the task
		 * @throws Exception when it could not be sent
		 */
		void signal(String taskId) throws Exception;

	}

}
