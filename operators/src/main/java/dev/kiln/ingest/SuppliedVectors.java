package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.Locale;

/**
 * Checks the precomputed vector a record carries ({@code ingest.vector-field}) against the build's
 * model: an array of numbers, the model's dimension, every component finite as a float, not zero,
 * and of unit length (within {@code ingest.vector-unit-tolerance}) when the model normalises — Kiln
 * indexes with dot product, which is cosine only for unit vectors. A vector that fails is a
 * {@link MalformedRecordException} with one of the {@code vector_*} reasons, so the record is
 * quarantined like any other bad record and the build goes on.
 */
public final class SuppliedVectors implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int dimension;
  private final boolean normalized;
  private final double tolerance;

  /**
   * @param dimension the model's dimension
   * @param normalized whether the model's vectors are L2-normalised (then supplied ones must be too)
   * @param tolerance how far {@code |v|} may be from 1
   */
  public SuppliedVectors(int dimension, boolean normalized, double tolerance) {
    this.dimension = dimension;
    this.normalized = normalized;
    this.tolerance = tolerance;
  }

  public int dimension() {
    return dimension;
  }

  /** The vector of {@code node} as floats, or the reason it cannot be indexed. */
  public float[] parse(JsonNode node) throws MalformedRecordException {
    if (!node.isArray()) {
      throw new MalformedRecordException(QuarantineReason.VECTOR_MALFORMED,
          "vector is a JSON " + node.getNodeType().name().toLowerCase(Locale.ROOT) + ", not an array of numbers");
    }
    if (node.size() != dimension) {
      throw new MalformedRecordException(QuarantineReason.VECTOR_DIMENSION,
          "vector has " + node.size() + " dimensions; the model's have " + dimension);
    }
    float[] v = new float[dimension];
    double norm2 = 0;
    for (int i = 0; i < dimension; i++) {
      JsonNode x = node.get(i);
      if (x.isTextual() && isNonFiniteName(x.asText())) {
        // JSON has no NaN or Infinity; a writer that emits them as strings meant the number.
        throw new MalformedRecordException(QuarantineReason.VECTOR_NOT_FINITE,
            "vector component " + i + " is " + x.asText());
      }
      if (!x.isNumber()) {
        throw new MalformedRecordException(QuarantineReason.VECTOR_MALFORMED,
            "vector component " + i + " is not a number");
      }
      float f = (float) x.doubleValue();
      if (!Float.isFinite(f)) {
        throw new MalformedRecordException(QuarantineReason.VECTOR_NOT_FINITE,
            "vector component " + i + " is " + x.asText() + " (not a finite float)");
      }
      v[i] = f;
      norm2 += (double) f * f;
    }
    return check(v, norm2);
  }

  /**
   * A vector its reader already decoded into floats (a Parquet list column), checked like a parsed
   * one: dimension, finite components, not zero, unit length when the model normalises.
   */
  public float[] check(float[] v) throws MalformedRecordException {
    if (v.length != dimension) {
      throw new MalformedRecordException(QuarantineReason.VECTOR_DIMENSION,
          "vector has " + v.length + " dimensions; the model's have " + dimension);
    }
    double norm2 = 0;
    for (int i = 0; i < v.length; i++) {
      if (!Float.isFinite(v[i])) {
        throw new MalformedRecordException(QuarantineReason.VECTOR_NOT_FINITE,
            "vector component " + i + " is " + v[i] + " (not a finite float)");
      }
      norm2 += (double) v[i] * v[i];
    }
    return check(v, norm2);
  }

  private float[] check(float[] v, double norm2) throws MalformedRecordException {
    if (norm2 == 0) {
      throw new MalformedRecordException(QuarantineReason.VECTOR_ZERO, "vector has length zero");
    }
    double norm = Math.sqrt(norm2);
    if (normalized && Math.abs(norm - 1) > tolerance) {
      throw new MalformedRecordException(QuarantineReason.VECTOR_NOT_UNIT, String.format(Locale.ROOT,
          "vector has length %.6f; the model's vectors are unit length (tolerance %.0e)", norm, tolerance));
    }
    return v;
  }

  private static boolean isNonFiniteName(String s) {
    String t = s.strip().toLowerCase(Locale.ROOT);
    return t.equals("nan") || t.equals("infinity") || t.equals("-infinity") || t.equals("+infinity")
        || t.equals("inf") || t.equals("-inf");
  }
}
