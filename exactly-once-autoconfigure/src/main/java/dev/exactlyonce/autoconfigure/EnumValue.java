package dev.exactlyonce.autoconfigure;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks the value of an enum property strictly: Spring Boot binds an enum leniently, ignoring
 * case and every character that is not a letter or digit, so {@code natskv} would silently select
 * {@code nats-kv}. A value is accepted as a constant's name in lower case with dashes
 * ({@code nats-kv}), any letter case and {@code _} for {@code -} included ({@code NATS_KV}).
 */
final class EnumValue {

	private EnumValue() {
	}

	/**
	 * What is wrong with a value, if anything.
	 * @param value the value as the property source holds it
	 * @param type the enum it binds to
	 * @return the accepted values and the closest one, when the value is none of them
	 */
	static Optional<String> problem(Object value, Class<?> type) {
		if (!(value instanceof CharSequence)) {
			return Optional.empty();
		}
		String written = normalized(value.toString());
		List<String> accepted = Arrays.stream(type.getEnumConstants())
			.map((constant) -> normalized(((Enum<?>) constant).name()))
			.toList();
		if (accepted.contains(written)) {
			return Optional.empty();
		}
		String closest = accepted.stream()
			.min(Comparator.comparingInt((candidate) -> EditDistance.between(written, candidate)))
			.orElseThrow();
		return Optional.of("accepted values are " + String.join(", ", accepted) + "; did you mean " + closest + "?");
	}

	private static String normalized(String text) {
		return text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
