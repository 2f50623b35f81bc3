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
    // Four sums, so that the additions do not wait on each other; a NaN or infinite component makes
    // the total NaN or infinite (a finite float squared stays finite in a double), and only then are
    // the components looked at one by one to name it.
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int i = 0;
    for (; i + 3 < v.length; i += 4) {
      s0 += (double) v[i] * v[i];
      s1 += (double) v[i + 1] * v[i + 1];
      s2 += (double) v[i + 2] * v[i + 2];
      s3 += (double) v[i + 3] * v[i + 3];
    }
    for (; i < v.length; i++) {
      s0 += (double) v[i] * v[i];
    }
    double norm2 = (s0 + s1) + (s2 + s3);
    if (!Double.isFinite(norm2)) {
      for (int j = 0; j < v.length; j++) {
        if (!Float.isFinite(v[j])) {
          throw new MalformedRecordException(QuarantineReason.VECTOR_NOT_FINITE,
              "vector component " + j + " is " + v[j] + " (not a finite float)");
        }
      }
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
