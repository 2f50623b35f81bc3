package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks a JSON value against an OpenAPI 3.0 schema object of a document: the keywords the Kiln
 * document uses ({@code $ref}, {@code type}, {@code nullable}, {@code enum}, {@code oneOf},
 * {@code properties}, {@code required}, {@code additionalProperties}, {@code items}, {@code minimum},
 * {@code maximum}, {@code maxLength}, {@code pattern}). A keyword it does not know fails the check, so
 * the document cannot grow a constraint this test silently ignores.
 */
final class JsonSchemaCheck {
  private static final List<String> KNOWN = List.of("$ref", "type", "nullable", "enum", "oneOf", "properties",
      "required", "additionalProperties", "items", "minimum", "maximum", "maxLength", "pattern", "description",
      "default");
  private final JsonNode document;

  JsonSchemaCheck(JsonNode document) {
    this.document = document;
  }

  /** The problems of {@code value} against {@code schema}; empty when it conforms. */
  List<String> problems(JsonNode schema, JsonNode value) {
    List<String> out = new ArrayList<>();
    check(schema, value, "$", out);
    return out;
  }

  JsonNode resolve(JsonNode node) {
    while (node.has("$ref")) {
      String ref = node.get("$ref").asText();
      if (!ref.startsWith("#/")) {
        throw new IllegalArgumentException("only local references are followed: " + ref);
      }
      JsonNode target = document.at(ref.substring(1));
      if (target.isMissingNode()) {
        throw new IllegalArgumentException("dangling reference " + ref);
      }
      node = target;
    }
    return node;
  }

  private void check(JsonNode schema, JsonNode value, String at, List<String> out) {
    schema = resolve(schema);
    for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
      String keyword = it.next();
      if (!KNOWN.contains(keyword)) {
        out.add(at + ": the schema uses '" + keyword + "', which this check does not know");
      }
    }
    if (value.isNull() && schema.path("nullable").asBoolean(false)) {
      return;
    }
    if (schema.has("oneOf")) {
      int matched = 0;
      List<String> why = new ArrayList<>();
      for (JsonNode alternative : schema.get("oneOf")) {
        List<String> p = new ArrayList<>();
        check(alternative, value, at, p);
        if (p.isEmpty()) {
          matched++;
        } else {
          why.addAll(p);
        }
      }
      if (matched != 1) {
        out.add(at + ": matches " + matched + " of the oneOf alternatives " + (matched == 0 ? why : ""));
      }
    }
    if (schema.has("type") && !hasType(value, schema.get("type").asText())) {
      out.add(at + ": expected " + schema.get("type").asText() + ", got " + value.getNodeType());
      return;
    }
    if (schema.has("enum")) {
      boolean found = false;
      for (JsonNode e : schema.get("enum")) {
        found |= e.equals(value);
      }
      if (!found) {
        out.add(at + ": " + value + " is not one of " + schema.get("enum"));
      }
    }
    if (value.isNumber()) {
      if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) {
        out.add(at + ": " + value + " < minimum " + schema.get("minimum"));
      }
      if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) {
        out.add(at + ": " + value + " > maximum " + schema.get("maximum"));
      }
    }
    if (value.isTextual()) {
      if (schema.has("maxLength") && value.asText().length() > schema.get("maxLength").asInt()) {
        out.add(at + ": longer than " + schema.get("maxLength"));
      }
      if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
        out.add(at + ": '" + value.asText() + "' does not match " + schema.get("pattern").asText());
      }
    }
    if (value.isArray() && schema.has("items")) {
      for (int i = 0; i < value.size(); i++) {
        check(schema.get("items"), value.get(i), at + "[" + i + "]", out);
      }
    }
    if (value.isObject()) {
      for (JsonNode required : schema.path("required")) {
        if (!value.has(required.asText())) {
          out.add(at + ": missing required '" + required.asText() + "'");
        }
      }
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.get("additionalProperties");
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        String name = field.getKey();
        if (properties.has(name)) {
          check(properties.get(name), field.getValue(), at + "." + name, out);
        } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
          out.add(at + ": '" + name + "' is not in the schema");
        } else if (additional != null && additional.isObject()) {
          check(additional, field.getValue(), at + "." + name, out);
        }
      }
    }
  }

  private static boolean hasType(JsonNode value, String type) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      default -> false;
    };
  }
}
