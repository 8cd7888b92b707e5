package dev.exactlyonce.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.ResolvableType;

/**
 * Every key the binder can bind to a set of {@code @ConfigurationProperties} classes, read from
 * their bean properties: groups (binding classes declared beside a properties class), maps (any key,
 * one element), lists ({@code [n]}) and values. A name matches a property in Spring Boot's uniform
 * form ({@code ack-wait}, {@code ackWait}, {@code ack_wait} and {@code ACKWAIT} are one key);
 * environment variables also match in Boot's legacy form, where {@code _} separates the words of a
 * property ({@code ACK_WAIT}).
 */
final class PropertyKeyTree {

	private enum Kind {

		GROUP, MAP, LIST, VALUE

	}

	private final Kind kind;

	private final Map<String, PropertyKeyTree> children = new LinkedHashMap<>();

	private final PropertyKeyTree element;

	/** The enum a value binds to, else {@code null}. */
	private final Class<?> enumType;

	private PropertyKeyTree(Kind kind, PropertyKeyTree element) {
		this(kind, element, null);
	}

	private PropertyKeyTree(Kind kind, PropertyKeyTree element, Class<?> enumType) {
		this.kind = kind;
		this.element = element;
		this.enumType = enumType;
	}

	/**
	 * The keys of the given properties classes, each under the prefix of its
	 * {@link ConfigurationProperties} annotation.
	 * @param propertiesClasses the classes
	 * @return the tree, rooted above the first element of every prefix
	 */
	static PropertyKeyTree of(List<Class<?>> propertiesClasses) {
		Set<Class<?>> roots = Set.copyOf(propertiesClasses);
		PropertyKeyTree root = new PropertyKeyTree(Kind.GROUP, null);
		for (Class<?> type : propertiesClasses) {
			PropertyKeyTree group = root;
			for (String element : prefix(type).split("\\.")) {
				group = group.children.computeIfAbsent(element, (name) -> new PropertyKeyTree(Kind.GROUP, null));
			}
			group.addProperties(type, roots);
		}
		return root;
	}

	private static String prefix(Class<?> type) {
		ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
		return annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix();
	}

	private void addProperties(Class<?> type, Set<Class<?>> roots) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getName().equals("class")) {
				continue;
			}
			ResolvableType propertyType = (property.getReadMethod() != null)
					? ResolvableType.forMethodReturnType(property.getReadMethod())
					: ResolvableType.forMethodParameter(property.getWriteMethod(), 0);
			this.children.put(DataObjectPropertyName.toDashedForm(property.getName()), node(propertyType, roots));
		}
	}

	private static PropertyKeyTree node(ResolvableType type, Set<Class<?>> roots) {
		Class<?> raw = type.resolve(Object.class);
		if (Map.class.isAssignableFrom(raw)) {
			return new PropertyKeyTree(Kind.MAP, node(type.asMap().getGeneric(1), roots));
		}
		if (Collection.class.isAssignableFrom(raw)) {
			return new PropertyKeyTree(Kind.LIST, node(type.asCollection().getGeneric(0), roots));
		}
		if (raw.isArray()) {
			return new PropertyKeyTree(Kind.LIST, node(type.getComponentType(), roots));
		}
		if (isGroup(raw, roots)) {
			PropertyKeyTree group = new PropertyKeyTree(Kind.GROUP, null);
			group.addProperties(raw, roots);
			return group;
		}
		return new PropertyKeyTree(Kind.VALUE, null, raw.isEnum() ? raw : null);
	}

	/**
	 * Binding classes declared beside a properties class (in its package, nested or not) are groups
	 * of keys; anything else, enums included, is a value.
	 */
	private static boolean isGroup(Class<?> type, Set<Class<?>> roots) {
		if (type.isEnum()) {
			return false;
		}
		return roots.stream().anyMatch((root) -> root.getPackageName().equals(type.getPackageName()));
	}

	/**
	 * Where a name leaves the tree.
	 * @param name the name as a property source gives it
	 * @param environment whether it comes from environment variables (legacy names match too)
	 * @return {@code null} when it names a key, group, map or list of the tree; else the deepest
	 * point at which it could not be matched
	 */
	Miss miss(ConfigurationPropertyName name, boolean environment) {
		Miss miss = walk(name, 0, environment);
		return (miss.index() < name.getNumberOfElements()) ? new Miss(miss.index(), miss.node(), this) : null;
	}

	/**
	 * The enum a name's value binds to.
	 * @param name the name as a property source gives it
	 * @param environment whether it comes from environment variables
	 * @return the enum type when the name is a key whose value is one of an enum's constants
	 */
	Optional<Class<?>> enumType(ConfigurationPropertyName name, boolean environment) {
		Miss end = walk(name, 0, environment);
		return (end.index() == name.getNumberOfElements()) ? Optional.ofNullable(end.node().enumType)
				: Optional.empty();
	}

	/** Follows a name down the tree: where it left it, or (at its last element's index) the node it names. */
	private Miss walk(ConfigurationPropertyName name, int index, boolean environment) {
		if (index == name.getNumberOfElements()) {
			return new Miss(index, this, null);
		}
		return switch (this.kind) {
			case VALUE -> new Miss(index, this, null);
			case LIST -> name.isNumericIndex(index) ? this.element.walk(name, index + 1, environment)
					: new Miss(index, this, null);
			case MAP -> this.element.walk(name, index + 1, environment);
			case GROUP -> groupMiss(name, index, environment);
		};
	}

	private Miss groupMiss(ConfigurationPropertyName name, int index, boolean environment) {
		Miss deepest = new Miss(index, this, null);
		for (Map.Entry<String, PropertyKeyTree> child : this.children.entrySet()) {
			for (int elements : spellings(child.getKey(), name, index, environment)) {
				Miss miss = child.getValue().walk(name, index + elements, environment);
				if (miss.index() == name.getNumberOfElements()) {
					return miss;
				}
				if (miss.index() > deepest.index()) {
					deepest = miss;
				}
			}
		}
		return deepest;
	}

	/** How many elements from {@code index} spell the property: one, or for variables several. */
	private static List<Integer> spellings(String property, ConfigurationPropertyName name, int index,
			boolean environment) {
		List<Integer> spellings = new ArrayList<>(2);
		if (!name.isNumericIndex(index) && uniform(property).equals(name.getElement(index, Form.UNIFORM))) {
			spellings.add(1);
		}
		if (environment && property.indexOf('-') > 0) {
			StringBuilder words = new StringBuilder(name.getElement(index, Form.ORIGINAL));
			for (int end = index + 1; end < name.getNumberOfElements() && words.length() < property.length(); end++) {
				words.append('-').append(name.getElement(end, Form.ORIGINAL));
				if (words.toString().equals(property)) {
					spellings.add(end - index + 1);
				}
			}
		}
		return spellings;
	}

	private static String uniform(String dashed) {
		return dashed.replace("-", "");
	}

	/**
	 * Collects the names of the value keys called {@code key} that groups alone lead to from here.
	 * @param key the key, uniform
	 * @param path the name of this node
	 * @param found where the names go
	 */
	private void valueKeysNamed(String key, ConfigurationPropertyName path, List<ConfigurationPropertyName> found) {
		for (Map.Entry<String, PropertyKeyTree> child : this.children.entrySet()) {
			ConfigurationPropertyName childPath = path.append(child.getKey());
			if (child.getValue().kind == Kind.VALUE && uniform(child.getKey()).equals(key)) {
				found.add(childPath);
			}
			else if (child.getValue().kind == Kind.GROUP) {
				child.getValue().valueKeysNamed(key, childPath, found);
			}
		}
	}

	/**
	 * Where a name left the tree.
	 *
	 * @param index the first element that matched nothing
	 * @param node the node it should have matched
	 * @param root the whole tree, where a key put in the wrong place is looked for
	 */
	record Miss(int index, PropertyKeyTree node, PropertyKeyTree root) {

		/**
		 * What is wrong with the name and the likely fix.
		 * @param name the name
		 * @param names renders names as the user writes them
		 * @return the hint, e.g. "did you mean exactlyonce.store.type?"
		 */
		String hint(ConfigurationPropertyName name, NameRenderer names) {
			String parent = names.render(name.chop(this.index));
			return switch (this.node.kind) {
				case VALUE -> parent + " takes a value, not nested keys";
				case LIST -> parent + " is a list: index its elements as " + parent + "[0], " + parent + "[1], ...";
				case MAP, GROUP -> closest(name, names).or(() -> elsewhere(name, names))
					.map((suggestion) -> "did you mean " + suggestion + "?")
					.orElse("valid keys of " + parent + ": " + String.join(", ", this.node.children.keySet()));
			};
		}

		/** The one key of the same name in another group, when the last element is a key put in the wrong place. */
		private Optional<String> elsewhere(ConfigurationPropertyName name, NameRenderer names) {
			if (this.root == null || this.index != name.getNumberOfElements() - 1) {
				return Optional.empty();
			}
			List<ConfigurationPropertyName> found = new ArrayList<>();
			this.root.valueKeysNamed(name.getElement(this.index, Form.UNIFORM), ConfigurationPropertyName.EMPTY, found);
			return (found.size() == 1) ? Optional.of(names.render(found.get(0))) : Optional.empty();
		}

		/** The name with the unknown part replaced by the nearest valid key, when one is near. */
		private Optional<String> closest(ConfigurationPropertyName name, NameRenderer names) {
			String best = null;
			int bestElements = 0;
			int bestDistance = Integer.MAX_VALUE;
			int words = names.wordsPerKey() ? name.getNumberOfElements() - this.index : 1;
			for (String candidate : this.node.children.keySet()) {
				StringBuilder written = new StringBuilder();
				for (int elements = 1; elements <= words; elements++) {
					written.append(name.getElement(this.index + elements - 1, Form.UNIFORM));
					int distance = EditDistance.between(uniform(written.toString()), uniform(candidate));
					if (distance < bestDistance) {
						best = candidate;
						bestElements = elements;
						bestDistance = distance;
					}
				}
			}
			if (best == null || bestDistance > Math.max(1, uniform(best).length() / 3)) {
				return Optional.empty();
			}
			ConfigurationPropertyName suggestion = name.chop(this.index).append(best);
			if (this.index + bestElements < name.getNumberOfElements()) {
				suggestion = suggestion.append(name.subName(this.index + bestElements));
			}
			return Optional.of(names.render(suggestion));
		}

	}

	/** Renders names the way the user writes them in one kind of property source. */
	interface NameRenderer {

		/**
		 * The name as written.
		 * @param name the name
		 * @return its text
		 */
		String render(ConfigurationPropertyName name);

		/**
		 * Whether one key may be written as several elements (environment variables).
		 * @return {@code true} for environment variables
		 */
		boolean wordsPerKey();

	}

}
