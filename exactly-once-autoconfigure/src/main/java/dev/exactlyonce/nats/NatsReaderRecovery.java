package dev.exactlyonce.nats;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.nats.client.Connection;
import io.nats.client.Options;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Restarts the NATS connection's reader when it stops on a message it cannot decode. The Java
 * client accepts only printable US-ASCII header values; a message from another client with others
 * (nats.js sends UTF-8) makes its reader throw, and the reader then stops without closing the
 * connection, which stays {@code CONNECTED} but reads nothing more (no deliveries, no publish
 * acks, no store answers). The client runs its reader on the executor given here, so the failure
 * is seen the moment it happens; the connection is then reconnected on another thread, which starts
 * a new reader, and the {@link NatsReaderListener listeners} are told (they dead-letter the
 * message, so that its redelivery does not stop the reader again).
 */
public class NatsReaderRecovery implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(NatsReaderRecovery.class);

	private final Supplier<List<NatsReaderListener>> listeners;

	private final ExecutorService readerExecutor = new ReaderExecutor(this::readerFailed);

	private final ExecutorService recovery = Executors.newSingleThreadExecutor(daemon("exactlyonce-nats-recovery"));

	private volatile Connection connection;

	/**
	 * Creates the recovery.
	 * @param listeners the listeners to tell, looked up at each failure
	 */
	public NatsReaderRecovery(Supplier<List<NatsReaderListener>> listeners) {
		this.listeners = listeners;
	}

	/**
	 * Runs the reader of connections built with these options on the watched executor.
	 * @param builder the connection options
	 * @return the builder
	 */
	public Options.Builder apply(Options.Builder builder) {
		return builder.readerExecutor(this.readerExecutor);
	}

	/**
	 * Sets the connection to reconnect when its reader fails.
	 * @param connection the connection built with {@link #apply(Options.Builder)}
	 */
	public void watch(Connection connection) {
		this.connection = connection;
	}

	private void readerFailed(Throwable failure) {
		logger.error("The NATS connection's reader stopped: it could not decode a message (" + failure
				+ "). The Java client accepts only printable US-ASCII header values and stops reading at the first "
				+ "message with others (published by another client, e.g. nats.js with UTF-8 header values); until "
				+ "it reads again no message, publish ack or store answer arrives. Reconnecting now; a listener's "
				+ "message with such headers is dead-lettered (reason 'headers the Java client cannot decode').");
		notifyListeners((listener) -> listener.readerFailed(failure));
		try {
			this.recovery.execute(this::reconnect);
		}
		catch (RejectedExecutionException ex) {
			// closing: the connection is closed too
		}
	}

	private void reconnect() {
		Connection watched = this.connection;
		if (watched == null || watched.getStatus() == Connection.Status.CLOSED) {
			return;
		}
		try {
			watched.forceReconnect();
			logger.info("NATS connection reconnected after its reader stopped; it reads again");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		catch (IOException | RuntimeException ex) {
			logger.error("Could not reconnect NATS after its reader stopped (" + ex + "); the client's own ping "
					+ "check reconnects it later (after two unanswered pings, 2 minutes apart by default)", ex);
			return;
		}
		notifyListeners(NatsReaderListener::readerRestarted);
	}

	private void notifyListeners(Consumer<NatsReaderListener> call) {
		try {
			for (NatsReaderListener listener : this.listeners.get()) {
				try {
					call.accept(listener);
				}
				catch (RuntimeException ex) {
					logger.error("NATS reader listener " + listener.getClass().getName() + " failed", ex);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.error("Could not look up the NATS reader listeners", ex);
		}
	}

	/** Stops the reader executor (the client does not stop an executor it was given) and the recovery. */
	@Override
	public void close() {
		this.recovery.shutdownNow();
		this.readerExecutor.shutdownNow();
	}

	private static ThreadFactory daemon(String prefix) {
		AtomicInteger number = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + "-" + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/** Runs the client's reader and reports it when it ends with an exception. */
	private static final class ReaderExecutor extends ThreadPoolExecutor {

		private final Consumer<Throwable> onFailure;

		ReaderExecutor(Consumer<Throwable> onFailure) {
			super(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), daemon("exactlyonce-nats-reader"));
			this.onFailure = onFailure;
		}

		@Override
		protected void afterExecute(Runnable task, Throwable thrown) {
			Throwable failure = thrown;
			if (failure == null && task instanceof Future<?> future && future.isDone()) {
				try {
					future.get();
				}
				catch (ExecutionException ex) {
					failure = ex.getCause();
				}
				catch (CancellationException ex) {
					// stopped on purpose
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			if (failure != null) {
				this.onFailure.accept(failure);
			}
		}

	}

}
