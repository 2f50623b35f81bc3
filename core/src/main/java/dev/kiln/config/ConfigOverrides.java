package dev.kiln.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Command-line overrides of a typed YAML config ({@code --set key=value}), for any key the YAML has:
 * dotted paths through its sections ({@code index.hnsw-m=32}), map entries below a map key
 * ({@code filesystem.s3.endpoint=http://host:9000}, the entry's own name may contain dots), lists
 * ({@code corpus=[a, b]} as a YAML flow list, or {@code corpus=a} repeated: the first assignment of a
 * list key replaces the file's list, later ones append). Values are parsed for the key's type — whole
 * numbers, numbers, {@code true}/{@code false}, text as written — and a bad key or value is a
 * {@link ConfigException} naming the key. The specific options of a command ({@code --shards}) are
 * recorded here too, with typed values, so that every command-line value takes one path into the config.
 *
 * <p>Assignments apply in the order recorded, over the config as loaded; {@link #applyTo} returns a
 * new config and leaves validation (ranges, names) to the config's own {@code validate()}.
 *
 * @param <T> the config class (public fields in kebab-case YAML, as {@link BuildConfig})
 */
public final class ConfigOverrides<T> {
  /** The option that carries overrides, as messages name it. */
  public static final String OPTION = "--set";

  private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");
  private static final Pattern NUMBER = Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");

  private final Class<T> type;
  private final ObjectMapper mapper;
  private final List<Assignment> assignments = new ArrayList<>();

  /** One key set to one value: a {@code --set} string, or an already typed option value. */
  private record Assignment(String key, String text, Object typed, String origin) {}

  private ConfigOverrides(Class<T> type) {
    this.type = type;
    this.mapper = new ObjectMapper(new YAMLFactory())
        .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  public static <T> ConfigOverrides<T> of(Class<T> type) {
    return new ConfigOverrides<>(type);
  }

  /** Records {@code key=value} strings ({@code --set}); null or empty adds nothing. */
  public ConfigOverrides<T> parse(List<String> keyValues) {
    if (keyValues != null) {
      for (String kv : keyValues) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new ConfigException(OPTION + " " + kv + ": expected KEY=VALUE, e.g. " + OPTION + " index.hnsw-m=32");
        }
        String key = kv.substring(0, eq).strip();
        assignments.add(new Assignment(key, kv.substring(eq + 1), null, OPTION + " " + key));
      }
    }
    return this;
  }

  /**
   * Records a typed value for {@code key}, as a specific option gives it ({@code option} names that
   * option in messages); a null value adds nothing, so unset options can be passed straight through.
   */
  public ConfigOverrides<T> set(String key, Object value, String option) {
    if (value != null) {
      assignments.add(new Assignment(key, null, value, option));
    }
    return this;
  }

  /** The keys recorded so far, in order. */
  public List<String> keys() {
    return assignments.stream().map(Assignment::key).toList();
  }

  /** A new config: {@code config} with every assignment applied in order. */
  public T applyTo(T config) {
    ObjectNode tree = mapper.valueToTree(config);
    Set<String> replacedLists = new HashSet<>();
    for (Assignment a : assignments) {
      apply(tree, a, replacedLists);
    }
    try {
      return mapper.treeToValue(tree, type);
    } catch (IOException e) {
      throw new ConfigException(OPTION + ": the overridden config does not read back: " + e.getMessage(), e);
    }
  }

  private void apply(ObjectNode tree, Assignment a, Set<String> replacedLists) {
    String[] path = a.key().split("\\.", -1);
    JavaType at = mapper.constructType(type);
    ObjectNode node = tree;
    String section = "";
    for (int i = 0; i < path.length; i++) {
      String name = path[i];
      BeanPropertyDefinition property = property(at, name);
      String key = section.isEmpty() ? name : section + "." + name;
      if (property == null) {
        throw new ConfigException(a.origin() + ": unknown key '" + a.key() + "'" + (section.isEmpty() ? "" : " ('"
            + name + "' is not a key of '" + section + "')") + "; known keys" + (section.isEmpty() ? "" : " of '"
            + section + "'") + ": " + names(at));
      }
      JavaType value = property.getPrimaryType();
      boolean last = i == path.length - 1;
      if (value.isMapLikeType()) {
        if (last) {
          node.set(name, convert(a, key, value));
        } else {
          String entry = String.join(".", List.of(path).subList(i + 1, path.length));
          if (entry.isBlank()) {
            throw new ConfigException(a.origin() + ": '" + a.key() + "' names no entry of the map '" + key + "'");
          }
          child(node, name).set(entry, convert(a, key + "." + entry, value.getContentType()));
        }
        return;
      }
      if (value.isCollectionLikeType() || value.isArrayType()) {
        requireLast(a, key, last, "a list");
        JsonNode items = convert(a, key, value);
        if (items.isArray()) {
          node.set(name, items);
        } else if (replacedLists.contains(key) && node.get(name) instanceof ArrayNode list) {
          list.add(items);
        } else {
          node.set(name, JsonNodeFactory.instance.arrayNode().add(items));
        }
        replacedLists.add(key);
        return;
      }
      if (isScalar(value)) {
        requireLast(a, key, last, "a value");
        // A token count that may be 'auto' (chunker.size) takes the word as written; the field reads it.
        boolean auto = a.typed() == null && takesAuto(property);
        if (auto && !AutoTokens.isAuto(a.text()) && !WHOLE.matcher(a.text().strip()).matches()) {
          throw bad(a, key, a.text(), "a whole number of tokens or " + AutoTokens.WORD);
        }
        node.set(name, auto && AutoTokens.isAuto(a.text()) ? JsonNodeFactory.instance.textNode(AutoTokens.WORD)
            : convert(a, key, value));
        return;
      }
      if (last) {
        throw new ConfigException(a.origin() + ": '" + key + "' is a section; set one of its keys: " + names(value)
            .stream().map(n -> key + "." + n).toList());
      }
      node = child(node, name);
      at = value;
      section = key;
    }
  }

  private static boolean takesAuto(BeanPropertyDefinition property) {
    JsonDeserialize reader = property.getField().getAnnotation(JsonDeserialize.class);
    return reader != null && reader.using() == AutoTokens.Reader.class;
  }

  private static void requireLast(Assignment a, String key, boolean last, String what) {
    if (!last) {
      throw new ConfigException(a.origin() + ": unknown key '" + a.key() + "' ('" + key + "' is " + what
          + ", not a section)");
    }
  }

  private static ObjectNode child(ObjectNode node, String name) {
    JsonNode existing = node.get(name);
    if (existing instanceof ObjectNode o) {
      return o;
    }
    return node.putObject(name);
  }

  private BeanPropertyDefinition property(JavaType owner, String name) {
    for (BeanPropertyDefinition p : describe(owner).findProperties()) {
      if (p.getName().equals(name) && p.hasField()) {
        return p;
      }
    }
    return null;
  }

  private List<String> names(JavaType owner) {
    return describe(owner).findProperties().stream().filter(BeanPropertyDefinition::hasField)
        .map(BeanPropertyDefinition::getName).sorted().toList();
  }

  private BeanDescription describe(JavaType owner) {
    return mapper.getDeserializationConfig().introspect(owner);
  }

  private static boolean isScalar(JavaType t) {
    Class<?> c = t.getRawClass();
    return t.isPrimitive() || t.isEnumType() || c == String.class || Number.class.isAssignableFrom(c)
        || c == Boolean.class || c == Character.class;
  }

  /** The JSON value of one assignment for a key of type {@code target}. */
  private JsonNode convert(Assignment a, String key, JavaType target) {
    if (a.typed() != null) {
      return mapper.valueToTree(a.typed());
    }
    String text = a.text();
    if (target.isMapLikeType() || target.isCollectionLikeType() || target.isArrayType()) {
      boolean map = target.isMapLikeType();
      String open = map ? "{" : "[";
      if (text.strip().startsWith(open)) {
        JsonNode parsed;
        try {
          parsed = mapper.readTree(text);
        } catch (JsonProcessingException e) {
          throw new ConfigException(a.origin() + "=" + text + ": not a YAML flow " + (map ? "map" : "list") + ": "
              + e.getOriginalMessage(), e);
        }
        if (map ? !parsed.isObject() : !parsed.isArray()) {
          throw new ConfigException(a.origin() + "=" + text + ": expected a YAML flow " + (map ? "map {k: v}" : "list [a, b]"));
        }
        if (!map) {
          ArrayNode items = JsonNodeFactory.instance.arrayNode();
          parsed.forEach(item -> items.add(scalar(a, key, item.isValueNode() ? item.asText() : item.toString(),
              target.getContentType())));
          return items;
        }
        return parsed;
      }
      if (map) {
        throw new ConfigException(a.origin() + ": '" + key + "' is a map: set an entry (" + OPTION + " " + key
            + ".NAME=VALUE) or the whole map as a YAML flow map (" + OPTION + " " + key + "={NAME: VALUE})");
      }
      return scalar(a, key, text, target.getContentType());
    }
    return scalar(a, key, text, target);
  }

  private static JsonNode scalar(Assignment a, String key, String text, JavaType target) {
    Class<?> c = target.getRawClass();
    JsonNodeFactory f = JsonNodeFactory.instance;
    String v = text.strip();
    if (c == int.class || c == Integer.class || c == long.class || c == Long.class) {
      if (!WHOLE.matcher(v).matches()) {
        throw bad(a, key, text, "a whole number");
      }
      try {
        long n = Long.parseLong(v);
        if ((c == int.class || c == Integer.class) && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
          throw bad(a, key, text, "a whole number within " + Integer.MIN_VALUE + ".." + Integer.MAX_VALUE);
        }
        return f.numberNode(n);
      } catch (NumberFormatException e) {
        throw bad(a, key, text, "a whole number within 64 bits");
      }
    }
    if (c == double.class || c == Double.class || c == float.class || c == Float.class) {
      if (!NUMBER.matcher(v).matches()) {
        throw bad(a, key, text, "a number such as 0.5");
      }
      return f.numberNode(Double.parseDouble(v));
    }
    if (c == boolean.class || c == Boolean.class) {
      if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
        return f.booleanNode(Boolean.parseBoolean(v));
      }
      throw bad(a, key, text, "true or false");
    }
    return f.textNode(text);
  }

  private static ConfigException bad(Assignment a, String key, String text, String expected) {
    return new ConfigException(a.origin() + "=" + text + ": '" + key + "' takes " + expected + ", not '" + text + "'");
  }
}
