package dev.exactlyonce.store.firestore;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.auth.Credentials;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;

/**
 * Counts the requests a Firestore client sends that name a collection (a query over it, a read of
 * its documents), as they go onto the wire to the emulator.
 */
final class FirestoreRequestCounter implements ClientInterceptor {

	private final String collection;

	private final AtomicLong counted = new AtomicLong();

	/**
	 * Creates a counter.
	 * @param collection the collection whose requests are counted
	 */
	FirestoreRequestCounter(String collection) {
		this.collection = collection;
	}

	/**
	 * A client of the emulator whose requests are counted.
	 * @param hostPort the emulator's host and port
	 * @return the client
	 */
	Firestore connect(String hostPort) {
		return FirestoreOptions.newBuilder()
			.setProjectId("exactly-once-test")
			.setChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
				.setEndpoint(hostPort)
				.setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
				.setInterceptorProvider(() -> List.of(this))
				.build())
			.setCredentials(new EmulatorOwner())
			.build()
			.getService();
	}

	/**
	 * The requests counted so far (each is sent before its call returns).
	 * @return the count
	 */
	long count() {
		return this.counted.get();
	}

	@Override
	public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
		return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {

			@Override
			public void sendMessage(Q message) {
				if (message.toString().contains(FirestoreRequestCounter.this.collection)) {
					FirestoreRequestCounter.this.counted.incrementAndGet();
				}
				super.sendMessage(message);
			}

		};
	}

	/** What Firestore's own emulator settings send: the emulator's owner, whom no rule limits. */
	private static final class EmulatorOwner extends Credentials {

		@Override
		public String getAuthenticationType() {
			return "Bearer";
		}

		@Override
		public Map<String, List<String>> getRequestMetadata(URI uri) {
			return Map.of("Authorization", List.of("Bearer owner"));
		}

		@Override
		public boolean hasRequestMetadata() {
			return true;
		}

		@Override
		public boolean hasRequestMetadataOnly() {
			return true;
		}

		@Override
		public void refresh() {
		}

	}

}
