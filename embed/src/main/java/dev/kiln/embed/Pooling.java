package dev.kiln.embed;

/** How token vectors become one sentence vector. */
public enum Pooling {
  /** Average of the token vectors under the attention mask. */
  MEAN,
  /** The first ([CLS]) token's vector. */
  CLS
}
