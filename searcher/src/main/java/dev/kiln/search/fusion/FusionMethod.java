package dev.kiln.search.fusion;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
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

  /** @throws SettingException naming {@link Setting#FUSION} when {@code value} is neither rrf nor blend */
  public static FusionMethod parse(String value) {
    for (FusionMethod m : values()) {
      if (value != null && m.label().equalsIgnoreCase(value.trim())) {
        return m;
      }
    }
    throw new SettingException("unknown ", Setting.FUSION, " '" + value + "': valid values are rrf, blend");
  }
}
