package dev.exactlyonce.listener;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says at INFO which attempt a message waits for and until when: once per message and holder, not
 * on every delivery that finds the key still held. Remembers the last few thousand messages.
 */
final class HolderWaits {

	private static final Log logger = LogFactory.getLog(HolderWaits.class);

	private static final int REMEMBERED = 4096;

	private final Map<Long, String> logged = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
			return size() > REMEMBERED;
		}

	});

	void waiting(Delivery delivery, String holder, Instant leaseUntil) {
		if (!Objects.equals(this.logged.put(delivery.streamSequence(), holder), holder)) {
			logger.info("Message at " + delivery.describe() + " waits: its key '" + delivery.key() + "' is held by "
					+ holder + " until " + leaseUntil + " unless renewed; it runs once that attempt ends, or as an "
					+ "abandoned attempt once the lease runs out (waiting spends deliveries, never the key's attempts)");
		}
	}

}
