package dev.exactlyonce.testapp;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A minimal application with one exactly-once listener, started as separate instances by the
 * integration tests.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RecordingTaskHandler.class)
public class TestAgentApplication {

}
