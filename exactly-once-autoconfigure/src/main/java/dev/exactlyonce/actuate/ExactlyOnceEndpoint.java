package dev.exactlyonce.actuate;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.ConsumerInfo;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

import dev.exactlyonce.actuate.ExactlyOnceDescriptor.ClaimDescriptor;
import dev.exactlyonce.actuate.ExactlyOnceDescriptor.ConsumerDescriptor;
import dev.exactlyonce.actuate.ExactlyOnceDescriptor.InFlightClaims;
import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.ReconciliationTable;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.store.FirstRecords;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The {@code exactlyonce} actuator endpoint. Reading it lists listeners, consumers (backlog, ack
 * floor, dead letters), the claims held now, the last reconciliation and the declared limits' use;
 * {@code /actuator/exactlyonce/table} renders the reconciliation history as the reference table;
 * writing to it runs a reconciliation now (optional {@code window}, e.g. {@code 24h}). Read-only
 * by default, because a reconciliation scans the whole store and reads the streams: allow writing
 * with {@code management.endpoint.exactlyonce.access=unrestricted}, behind authentication.
 */
@Endpoint(id = "exactlyonce", defaultAccess = Access.READ_ONLY)
public class ExactlyOnceEndpoint {

	/** The most claims listed; the total is always given. */
	static final int MAX_CLAIMS = 100;

	private final Connection connection;

	private final Map<String, ConsumerSettings> consumers;

	private final Map<String, String> filterSubjects;

	private final ExactlyOnceListenerRegistry registry;

	private final IdempotencyStore store;

	private final DeadLetters deadLetters;

	private final Reconciliations reconciliations;

	private final ZoneId zone;

	private final Clock clock;

	private final NatsTaskLimits limits;

	/**
	 * Creates the endpoint.
	 * @param connection the NATS connection
	 * @param consumers the declared consumers, by name
	 * @param filterSubjects the declared filter subject of each consumer that has one
	 * @param registry the listener registry
	 * @param store the idempotency store
	 * @param deadLetters the dead-letter stream reader
	 * @param reconciliations the reconciliation runner, or {@code null} when reconciliation is off
	 * @param zone the time zone of the reconciliation table
	 * @param clock the clock
	 * @param limits the declared limits, or {@code null} when none is declared
	 */
	public ExactlyOnceEndpoint(Connection connection, Map<String, ConsumerSettings> consumers,
			Map<String, String> filterSubjects, ExactlyOnceListenerRegistry registry, IdempotencyStore store,
			DeadLetters deadLetters, @Nullable Reconciliations reconciliations, ZoneId zone, Clock clock,
			@Nullable NatsTaskLimits limits) {
		this.connection = connection;
		this.consumers = new java.util.TreeMap<>(consumers);
		this.filterSubjects = Map.copyOf(filterSubjects);
		this.registry = registry;
		this.store = store;
		this.deadLetters = deadLetters;
		this.reconciliations = reconciliations;
		this.zone = zone;
		this.clock = clock;
		this.limits = limits;
	}

	/**
	 * Everything at once.
	 * @return the descriptor
	 */
	@ReadOperation
	public ExactlyOnceDescriptor exactlyOnce() {
		Map<String, ConsumerDescriptor> consumerDescriptors = new LinkedHashMap<>();
		this.consumers.forEach((name, settings) -> consumerDescriptors.put(name, consumer(settings)));
		return new ExactlyOnceDescriptor(this.store.name(), this.registry.listeners(), consumerDescriptors,
				inFlightClaims(), (this.reconciliations != null) ? this.reconciliations.latest() : null, limits());
	}

	private ExactlyOnceDescriptor.Limits limits() {
		if (this.limits == null) {
			return new ExactlyOnceDescriptor.Limits(false, List.of(), null);
		}
		try {
			return new ExactlyOnceDescriptor.Limits(true,
					this.limits.usage().stream().map(LimitDescriptor::of).toList(), null);
		}
		catch (StoreUnavailableException ex) {
			return new ExactlyOnceDescriptor.Limits(true, List.of(), ex.getMessage());
		}
	}

	/**
	 * The reconciliation history as the reference table ({@code /actuator/exactlyonce/table}).
	 * @param part {@code table}
	 * @return the table as text, or {@code null} (404) for another part or with reconciliation off
	 */
	@ReadOperation(produces = "text/plain")
	public @Nullable String part(@Selector String part) {
		if (!"table".equals(part) || this.reconciliations == null) {
			return null;
		}
		return ReconciliationTable.render(this.reconciliations.history(), this.zone);
	}

	/**
	 * Runs a reconciliation now.
	 * @param window how far back to look (e.g. {@code 24h} or {@code PT24H}); the configured window
	 * when absent
	 * @return the report, or {@code null} (404) with reconciliation off
	 */
	@WriteOperation
	public @Nullable ReconciliationReport reconcile(@Nullable String window) {
		if (this.reconciliations == null) {
			return null;
		}
		return (window != null && !window.isBlank())
				? this.reconciliations.run(DurationStyle.detectAndParse(window)) : this.reconciliations.run();
	}

	private ConsumerDescriptor consumer(ConsumerSettings settings) {
		String filter = this.filterSubjects.get(settings.consumer());
		try {
			ConsumerInfo info = this.connection.jetStreamManagement()
				.getConsumerInfo(settings.stream(), settings.consumer());
			long deadLetterCount = this.deadLetters.count(settings.deadLetterSubject());
			return new ConsumerDescriptor(settings.stream(), filter, info.getNumPending(), info.getNumAckPending(),
					info.getRedelivered(), info.getNumWaiting(), info.getAckFloor().getStreamSequence(),
					lastActive(info), info.getDelivered().getStreamSequence(), settings.effectiveAckWait().toString(),
					settings.workingAckInterval().toString(), settings.lease().toString(), settings.maxDeliver(),
					settings.deadLetterSubject(), deadLetterCount, null);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			return new ConsumerDescriptor(settings.stream(), filter, null, null, null, null, null, null, null,
					settings.effectiveAckWait().toString(), settings.workingAckInterval().toString(),
					settings.lease().toString(), settings.maxDeliver(), settings.deadLetterSubject(), null,
					ex.getMessage());
		}
	}

	private static Instant lastActive(ConsumerInfo info) {
		return (info.getAckFloor().getLastActive() != null) ? info.getAckFloor().getLastActive().toInstant() : null;
	}

	private InFlightClaims inFlightClaims() {
		if (!(this.store instanceof RecordScanner scanner)) {
			return new InFlightClaims(false, 0, List.of());
		}
		Instant now = this.clock.instant();
		FirstRecords held = new FirstRecords(
				Comparator.comparing(IdempotencyRecord::startedAt).thenComparing(IdempotencyRecord::key), MAX_CLAIMS);
		scanner.scan((record) -> {
			if (record.state() == RecordState.IN_PROGRESS) {
				held.accept(record);
			}
		});
		List<ClaimDescriptor> claims = held.inOrder()
			.stream()
			.map((record) -> new ClaimDescriptor(record.key(), record.owner(), record.attempts(), record.startedAt(),
					Duration.between(record.startedAt(), now).toSeconds(), record.leaseUntil(),
					!record.leaseUntil().isAfter(now)))
			.toList();
		return new InFlightClaims(true, held.offered(), claims);
	}

}
