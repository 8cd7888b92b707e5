package dev.exactlyonce.faults;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;

/**
 * Keeps the driver's own connections quiet while servers are killed on purpose.
 */
final class QuietErrors implements ErrorListener {

	@Override
	public void errorOccurred(Connection conn, String error) {
	}

	@Override
	public void exceptionOccurred(Connection conn, Exception exp) {
	}

}
