package dev.exactlyonce.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata an IDE reads offers each fixed-set property's values with a
 * description, and every value offered binds.
 */
class ConfigurationMetadataHintsTests {

	@Test
	void everyHintedValueBindsToItsProperty() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readTree(in);
		}
		List<String> hinted = new ArrayList<>();
		for (JsonNode hint : metadata.get("hints")) {
			String name = hint.get("name").asString();
			hinted.add(name);
			for (JsonNode value : hint.get("values")) {
				assertThat(value.get("description").asString()).isNotBlank();
				ExactlyOnceProperties bound = new Binder(new MapConfigurationPropertySource(
						Map.of(name, value.get("value").asString())))
					.bindOrCreate("exactlyonce", ExactlyOnceProperties.class);
				assertThat(bound).as(name + "=" + value.get("value").asString()).isNotNull();
			}
		}
		assertThat(hinted).contains("exactlyonce.store.type", "exactlyonce.listener.ack-mode",
				"exactlyonce.provisioning.mode", "exactlyonce.store.jdbc.initialize-schema");
	}

}
