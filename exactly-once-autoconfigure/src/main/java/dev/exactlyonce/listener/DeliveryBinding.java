package dev.exactlyonce.listener;

/**
 * Binds the delivery being handled to the worker thread, so the exactly-once advice on the proxy
 * can find it. A call of a listener method with nothing bound is a direct call and passes through.
 */
final class DeliveryBinding {

	private static final ThreadLocal<Delivery> CURRENT = new ThreadLocal<>();

	private DeliveryBinding() {
	}

	static void bind(Delivery delivery) {
		CURRENT.set(delivery);
	}

	static Delivery current() {
		return CURRENT.get();
	}

	static void unbind() {
		CURRENT.remove();
	}

}
