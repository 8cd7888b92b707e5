package dev.exactlyonce.autoconfigure;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Fails start-up when a key under {@code exactlyonce.*} binds to no property, or its value to none
 * of the constants of its enum ({@link EnumValue}), naming the key,
 * where it was set and the closest valid name: Spring Boot ignores unknown keys, and a misspelled
 * timing ({@code ack-wiat: 5m}) would silently keep its default. Checks every enumerable property
 * source (files, command line, system properties, test properties), including keys inside
 * {@code streams.<name>} and {@code consumers.<name>}. Unknown environment variables are only logged: the
 * environment holds variables the application does not own (a Kubernetes Service named
 * {@code exactlyonce-nats} injects {@code EXACTLYONCE_NATS_SERVICE_HOST}). Runs before any bean is
 * created, so nothing connects with a half-applied configuration.
 */
final class UnknownPropertiesCheck implements BeanFactoryPostProcessor {

	/** Every properties class bound under {@code exactlyonce.*}. */
	static final List<Class<?>> PROPERTIES_CLASSES = List.of(ExactlyOnceProperties.class,
			ReconciliationProperties.class);

	private static final Log logger = LogFactory.getLog(UnknownPropertiesCheck.class);

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("exactlyonce");

	private static final PropertyKeyTree KEYS = PropertyKeyTree.of(PROPERTIES_CLASSES);

	private final Environment environment;

	UnknownPropertiesCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		check();
	}

	/**
	 * Checks every key under {@code exactlyonce.*}.
	 * @throws ExactlyOnceConfigurationException when a key outside environment variables is unknown
	 */
	void check() {
		Set<String> unknown = new TreeSet<>();
		Set<String> invalid = new TreeSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			boolean variables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
			PropertyKeyTree.NameRenderer names = variables ? VARIABLES : PROPERTIES;
			iterable.stream().filter((name) -> ROOT.isAncestorOf(name)).forEach((name) -> {
				PropertyKeyTree.Miss miss = KEYS.miss(name, variables);
				if (miss == null) {
					invalidValue(source, name, variables).ifPresent((problem) -> invalid.add(names.render(name) + "="
							+ source.getConfigurationProperty(name).getValue() + " (" + origin(source, name) + "): "
							+ problem));
					return;
				}
				if (variables) {
					logger.warn("Environment variable " + names.render(name) + " binds to no exactlyonce.* property "
							+ "and is ignored: " + miss.hint(name, names) + " (variables are not checked at start-up: "
							+ "the environment may hold variables this application does not own)");
				}
				else {
					unknown.add(names.render(name) + " (" + origin(source, name) + "): " + miss.hint(name, names));
				}
			});
		}
		if (!unknown.isEmpty()) {
			throw new ExactlyOnceConfigurationException("Unknown keys under exactlyonce.*; Spring Boot would ignore "
					+ "them and keep the defaults:\n - " + String.join("\n - ", unknown),
					"Correct or remove these keys (docs/properties.md lists every key); keep settings of "
							+ "your own application under a prefix other than exactlyonce");
		}
		if (!invalid.isEmpty()) {
			throw new ExactlyOnceConfigurationException("Invalid values under exactlyonce.*; Spring Boot would "
					+ "bind them loosely to another value or fail with a stack trace:\n - " + String.join("\n - ", invalid),
					"Set each of these properties to one of its accepted values (docs/properties.md lists them)");
		}
	}

	/** What is wrong with the value of a key of enum type, if anything. */
	private static Optional<String> invalidValue(ConfigurationPropertySource source, ConfigurationPropertyName name,
			boolean variables) {
		ConfigurationProperty property = source.getConfigurationProperty(name);
		return KEYS.enumType(name, variables)
			.flatMap((type) -> (property != null) ? EnumValue.problem(property.getValue(), type) : Optional.empty());
	}

	private static String origin(ConfigurationPropertySource source, ConfigurationPropertyName name) {
		ConfigurationProperty property = source.getConfigurationProperty(name);
		if (property != null && property.getOrigin() != null) {
			return property.getOrigin().toString();
		}
		return (source.getUnderlyingSource() instanceof PropertySource<?> propertySource)
				? "property source '" + propertySource.getName() + "'" : "unknown origin";
	}

	/** Names as written in files: dotted, {@code [n]} indexes, map keys as given. */
	private static final PropertyKeyTree.NameRenderer PROPERTIES = new PropertyKeyTree.NameRenderer() {

		@Override
		public String render(ConfigurationPropertyName name) {
			StringBuilder text = new StringBuilder();
			for (int i = 0; i < name.getNumberOfElements(); i++) {
				String element = name.getElement(i, Form.ORIGINAL);
				if (name.isNumericIndex(i) || element.contains(".")) {
					text.append('[').append(element).append(']');
				}
				else {
					text.append((i > 0) ? "." : "").append(element);
				}
			}
			return text.toString();
		}

		@Override
		public boolean wordsPerKey() {
			return false;
		}

	};

	/** Names as environment variables: upper case, {@code _} between elements, no dashes. */
	private static final PropertyKeyTree.NameRenderer VARIABLES = new PropertyKeyTree.NameRenderer() {

		@Override
		public String render(ConfigurationPropertyName name) {
			StringBuilder text = new StringBuilder();
			for (int i = 0; i < name.getNumberOfElements(); i++) {
				text.append((i > 0) ? "_" : "")
					.append(name.getElement(i, Form.ORIGINAL).replace("-", "").toUpperCase(Locale.ROOT));
			}
			return text.toString();
		}

		@Override
		public boolean wordsPerKey() {
			return true;
		}

	};

}
