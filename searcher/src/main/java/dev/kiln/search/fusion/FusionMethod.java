package dev.kiln.search.fusion;

import dev.kiln.config.ConfigException;
import java.util.Locale;

/** How hybrid search combines its dense and BM25 candidates. */
public enum FusionMethod {
  /** Reciprocal rank fusion: ranks only, {@code rrf-k} flattens the top. */
  RRF,
  /** Min-max normalised scores blended convexly with weight {@code alpha} on the dense side. */
  BLEND;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws ConfigException naming {@code --fusion} when {@code value} is neither rrf nor blend */
  public static FusionMethod parse(String value) {
    for (FusionMethod m : values()) {
      if (value != null && m.label().equalsIgnoreCase(value.trim())) {
        return m;
      }
    }
    throw new ConfigException("unknown --fusion '" + value + "': valid values are rrf, blend");
  }
}
