package dev.exactlyonce.autoconfigure;

import java.util.List;

/**
 * The {@link NatsConnectionDetails} read from {@code exactlyonce.nats.*}, used when the
 * application defines none.
 */
final class PropertiesNatsConnectionDetails implements NatsConnectionDetails {

	private final NatsProperties properties;

	PropertiesNatsConnectionDetails(NatsProperties properties) {
		this.properties = properties;
	}

	@Override
	public List<String> getServers() {
		return this.properties.getServers();
	}

	@Override
	public String getUsername() {
		return this.properties.getUsername();
	}

	@Override
	public String getPassword() {
		return this.properties.getPassword();
	}

	@Override
	public String getToken() {
		return this.properties.getToken();
	}

}
