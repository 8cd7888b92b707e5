package dev.exactlyonce.config;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duration is printed in its shortest exact form, which Spring Boot reads back to the same value.
 */
class DurationTextTests {

	@ParameterizedTest
	@CsvSource({ "PT1M, 1m", "PT30S, 30s", "PT1.5S, 1500ms", "PT2H, 2h", "PT168H, 7d", "PT90S, 90s",
			"PT0S, 0s", "PT-1M, -1m", "PT-1.5S, -1500ms", "PT0.000002S, 2us", "PT0.000000007S, 7ns",
			"PT1.000000001S, 1000000001ns", "PT2M30S, 150s" })
	void printsTheShortestExactFormThatBootReadsBack(Duration duration, String text) {
		assertThat(DurationText.of(duration)).isEqualTo(text);
		assertThat(DurationStyle.SIMPLE.parse(DurationText.of(duration))).isEqualTo(duration);
	}

	@ParameterizedTest
	@CsvSource({ "PT24H", "PT25H", "PT0.1S", "PT333.333333S", "PT59M59.999S" })
	void everyFormReadsBackToTheSameDuration(Duration duration) {
		assertThat(DurationStyle.SIMPLE.parse(DurationText.of(duration))).isEqualTo(duration);
	}

}
