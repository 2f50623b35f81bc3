package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.snapshot.Verification;
import picocli.CommandLine.Option;

/** {@code --verify}, shared by {@code search}, {@code eval} and {@code serve}. */
final class VerifyOption {
  @Option(names = "--verify", paramLabel = "record|full", defaultValue = "record",
      description = "what to hash when a snapshot is opened: record = only files its VERIFIED record does not vouch"
          + " for (changed, replaced or copied since they were verified); full = every file it reads"
          + " (default: ${DEFAULT-VALUE})")
  String verify;

  Verification mode() {
    try {
      return Verification.parse(verify);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("unknown --verify '" + verify + "': valid values are record, full");
    }
  }
}
