package dev.kiln.config;

import java.io.Serializable;

/** How documents are cut into chunks. Sizes are in model tokens (special tokens excluded). */
public class ChunkerConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Chunking strategy; {@code window} is the token window with overlap. */
  public String strategy = "window";
  /** Maximum tokens per chunk. */
  public int size = 200;
  /** Tokens shared by consecutive chunks of one document. */
  public int overlap = 32;

  void validate() {
    if (!"window".equals(strategy)) {
      throw new ConfigException("chunker.strategy '" + strategy + "' is not supported: use 'window'");
    }
    if (size < 8) {
      throw new ConfigException("chunker.size must be at least 8 tokens, was " + size);
    }
    if (overlap < 0 || overlap >= size) {
      throw new ConfigException(
          "chunker.overlap must be >= 0 and < chunker.size (" + size + "), was " + overlap);
    }
  }
}
