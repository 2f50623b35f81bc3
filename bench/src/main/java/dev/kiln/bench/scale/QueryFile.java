package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts of a scale run's {@code queries.json} (written by {@link ScaleBench}: {@code texts},
 * {@code vectors}, {@code tenants}, {@code truth}) that the child steps read the same way.
 */
final class QueryFile {
  private QueryFile() {}

  static List<String> texts(JsonNode file) {
    List<String> texts = new ArrayList<>();
    file.get("texts").forEach(t -> texts.add(t.asText()));
    return texts;
  }

  /** The precomputed query vectors, as floats. */
  static List<float[]> vectors(JsonNode file) {
    List<float[]> vectors = new ArrayList<>();
    file.get("vectors").forEach(v -> {
      float[] f = new float[v.size()];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) v.get(i).asDouble();
      }
      vectors.add(f);
    });
    return vectors;
  }
}
