package dev.kiln.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Ordered named counters printed as the table that ends every Kiln tool's run. */
public final class Counters {
  private final Map<String, String> values = new LinkedHashMap<>();

  public Counters put(String name, long value) {
    values.put(name, String.format(Locale.ROOT, "%,d", value));
    return this;
  }

  public Counters putSeconds(String name, long millis) {
    values.put(name, String.format(Locale.ROOT, "%.2f s", millis / 1000.0));
    return this;
  }

  public Counters put(String name, String value) {
    values.put(name, value);
    return this;
  }

  public Map<String, String> asMap() {
    return values;
  }

  /** A two-column text table. */
  public List<String> table(String title) {
    int w = Math.max(8, values.keySet().stream().mapToInt(String::length).max().orElse(8));
    int v = Math.max(6, values.values().stream().mapToInt(String::length).max().orElse(6));
    String rule = "+" + "-".repeat(w + 2) + "+" + "-".repeat(v + 2) + "+";
    List<String> lines = new ArrayList<>();
    lines.add(title);
    lines.add(rule);
    for (Map.Entry<String, String> e : values.entrySet()) {
      lines.add(String.format(Locale.ROOT, "| %-" + w + "s | %" + v + "s |", e.getKey(), e.getValue()));
    }
    lines.add(rule);
    return lines;
  }
}
