package dev.exactlyonce.testapp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

/**
 * An observation registry that keeps every observation it saw stop, in order.
 */
public final class StoppedObservations implements ObservationHandler<Observation.Context> {

	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	private final ObservationRegistry registry = ObservationRegistry.create();

	public StoppedObservations() {
		this.registry.observationConfig().observationHandler(this);
	}

	/** The registry to observe with. */
	public ObservationRegistry registry() {
		return this.registry;
	}

	/** The observations stopped so far. */
	public List<Observation.Context> stopped() {
		return this.stopped;
	}

	/** Whether an observation of that name stopped. */
	public boolean hasStopped(String name) {
		return this.stopped.stream().anyMatch((context) -> context.getName().equals(name));
	}

	/** The first stopped observation of that name. */
	public Observation.Context named(String name) {
		return this.stopped.stream()
			.filter((context) -> context.getName().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No observation " + name + " stopped: " + this.stopped));
	}

	@Override
	public void onStop(Observation.Context context) {
		this.stopped.add(context);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return true;
	}

}
