package dev.kiln.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a shard stores its chunk vectors for the HNSW search ({@code index.vector-encoding}). Every
 * encoding keeps the full-precision float32 vectors on disk as well: the quantised ones are what the
 * graph walk reads (smaller, so more of them stay in the page cache), the float32 ones rescore the
 * walk's candidates. The index builder maps each to a Lucene vectors format; the manifest records it.
 */
public enum VectorEncoding {
  /** Full precision: 4 bytes per dimension, HNSW scores are exact. */
  FLOAT32("float32"),
  /** 8-bit optimised scalar quantisation: 1 byte per dimension. */
  INT8("int8"),
  /** 4-bit optimised scalar quantisation: half a byte per dimension. */
  INT4("int4"),
  /** 1 bit per dimension (queries quantised to 4 bits), Lucene's BBQ. */
  BINARY("binary");

  private final String label;

  VectorEncoding(String label) {
    this.label = label;
  }

  /** The name used in configs, on the command line and in {@code manifest.json}. */
  public String label() {
    return label;
  }

  /** Whether the graph walks quantised vectors, so that its candidates need float32 rescoring. */
  public boolean quantized() {
    return this != FLOAT32;
  }

  /**
   * Parses a label; {@code null} means float32 (manifests written before the encoding was recorded).
   *
   * @throws ConfigException naming {@code index.vector-encoding} for an unknown label
   */
  public static VectorEncoding parse(String label) {
    if (label == null) {
      return FLOAT32;
    }
    for (VectorEncoding e : values()) {
      if (e.label.equals(label.toLowerCase(Locale.ROOT))) {
        return e;
      }
    }
    throw new ConfigException("index.vector-encoding (--vector-encoding) must be one of "
        + Arrays.stream(values()).map(VectorEncoding::label).collect(Collectors.joining("|"))
        + ", was '" + label + "'");
  }
}
