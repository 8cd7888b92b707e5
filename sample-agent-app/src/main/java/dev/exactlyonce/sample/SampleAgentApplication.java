package dev.exactlyonce.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The sample: a "CEO agent" HTTP endpoint that publishes tasks and a "marketing agent" that
 * handles each task exactly once.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleAgentApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleAgentApplication.class, args);
	}

}
