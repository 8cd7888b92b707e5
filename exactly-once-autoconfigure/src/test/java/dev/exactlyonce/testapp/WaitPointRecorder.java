package dev.exactlyonce.testapp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.exactlyonce.waits.WaitObserver;
import dev.exactlyonce.waits.WaitPoint;

/**
 * Records every {@link WaitPoint} a decision's delivery reached in one application instance, as
 * {@code <point> <store key> <name>}; can fail once at a chosen point, as a sender dying there would.
 */
public class WaitPointRecorder implements WaitObserver {

	private final List<String> points = new CopyOnWriteArrayList<>();

	private final AtomicReference<WaitPoint> failAt = new AtomicReference<>();

	/** Throws the next time a delivery reaches the point. */
	public void failOnceAt(WaitPoint point) {
		this.failAt.set(point);
	}

	@Override
	public void onPoint(WaitPoint point, String storeKey, String name) {
		this.points.add(point + " " + storeKey + " " + name);
		if (this.failAt.compareAndSet(point, null)) {
			throw new IllegalStateException("wait observer failed at " + point);
		}
	}

	public List<String> points() {
		return List.copyOf(this.points);
	}

}
