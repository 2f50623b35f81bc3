package dev.kiln.cli;

/**
 * One measured metric against its expectation.
 *
 * @param dataset dataset name
 * @param mode search mode
 * @param metric metric name
 * @param expected expected value
 * @param actual measured value
 * @param tolerance allowed absolute difference
 */
public record Drift(String dataset, String mode, String metric, double expected, double actual, double tolerance) {
  /** Beyond tolerance in either direction: an unexplained improvement is drift too, until recorded. */
  public boolean drifted() {
    return Math.abs(actual - expected) > tolerance + 1e-12;
  }
}
