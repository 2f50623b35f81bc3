package dev.kiln.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Structure-aware mutations of a valid JSON document for the {@code *FuzzTest}s: each {@link Mutation}
 * picks a container node and one of its fields or elements (by index, modulo what is there) and removes
 * it, nulls it, or replaces it with a value of another type (numbers at the edges of every range, odd
 * strings, empty containers). Byte-level damage is {@link #damage}. Both shrink, so a failure reports a
 * small input.
 */
public final class JsonMutations {
  private JsonMutations() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** One edit: {@code node} and {@code field} pick the target, {@code kind} what happens to it. */
  public record Mutation(int node, int field, int kind, long number, String text) {}

  public static Arbitrary<Mutation> mutations() {
    return Combinators.combine(Arbitraries.integers().greaterOrEqual(0), Arbitraries.integers().greaterOrEqual(0),
        Arbitraries.integers().between(0, 12),
        Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, 1L, (long) Integer.MAX_VALUE + 1,
            Long.MIN_VALUE, Long.MAX_VALUE)),
        Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(12), Arbitraries.of("", "..", "../x", "/", "a/../../b",
            "\u0000", "\ud800", "NaN", "-1", "9".repeat(40), "2026-13-45T99:99:99Z", "CURRENT")))
        .as(Mutation::new);
  }

  public static Arbitrary<List<Mutation>> mutationLists() {
    return mutations().list().ofMinSize(1).ofMaxSize(5);
  }

  /** {@code json} with {@code mutations} applied, as bytes. */
  public static byte[] apply(byte[] json, List<Mutation> mutations) {
    try {
      JsonNode root = JSON.readTree(json);
      for (Mutation m : mutations) {
        root = apply(root, m);
      }
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode apply(JsonNode root, Mutation m) {
    List<JsonNode> containers = new ArrayList<>();
    collect(root, containers);
    if (containers.isEmpty()) {
      return value(m);
    }
    JsonNode target = containers.get(m.node() % containers.size());
    if (target instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      String name = names.isEmpty() || m.kind() == 12 ? m.text() : names.get(m.field() % names.size());
      if (m.kind() == 0) {
        object.remove(name);
      } else {
        object.set(name, value(m));
      }
    } else if (target instanceof ArrayNode array) {
      if (array.isEmpty() || m.kind() == 12) {
        array.add(value(m));
      } else if (m.kind() == 0) {
        array.remove(m.field() % array.size());
      } else {
        array.set(m.field() % array.size(), value(m));
      }
    }
    return root;
  }

  private static void collect(JsonNode node, List<JsonNode> out) {
    if (node.isContainerNode()) {
      out.add(node);
      for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
        collect(it.next(), out);
      }
    }
  }

  private static JsonNode value(Mutation m) {
    return switch (m.kind()) {
      case 1 -> NODES.nullNode();
      case 2 -> NODES.numberNode(m.number());
      case 3 -> NODES.numberNode((int) m.number());
      case 4 -> NODES.numberNode(Double.longBitsToDouble(m.number()));
      case 5 -> NODES.numberNode(new BigInteger("9".repeat(30)));
      case 6 -> NODES.booleanNode(m.number() % 2 == 0);
      case 7 -> NODES.objectNode();
      case 8 -> NODES.arrayNode();
      case 9 -> NODES.arrayNode().add(m.text()).add(m.number());
      case 10 -> NODES.objectNode().put(m.text(), m.number());
      default -> NODES.textNode(m.text());
    };
  }

  /** A byte-level edit: {@code kind} 0 flips, 1 truncates, 2 inserts {@code value}, at fraction {@code at}. */
  public record Damage(int kind, double at, byte value) {}

  public static Arbitrary<List<Damage>> damages() {
    return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.doubles().between(0, 1),
        Arbitraries.bytes()).as(Damage::new).list().ofMinSize(1).ofMaxSize(4);
  }

  public static byte[] damage(byte[] in, List<Damage> damages) {
    byte[] out = in;
    for (Damage d : damages) {
      int pos = (int) (d.at() * out.length);
      if (d.kind() == 1 || out.length == 0) {
        out = Arrays.copyOf(out, pos);
      } else if (d.kind() == 0) {
        out = out.clone();
        out[Math.min(pos, out.length - 1)] ^= d.value() == 0 ? (byte) 0x80 : d.value();
      } else {
        byte[] grown = new byte[out.length + 1];
        System.arraycopy(out, 0, grown, 0, pos);
        grown[pos] = d.value();
        System.arraycopy(out, pos, grown, pos + 1, out.length - pos);
        out = grown;
      }
    }
    return out;
  }
}
