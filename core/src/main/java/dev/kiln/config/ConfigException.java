package dev.kiln.config;

/** A configuration or usage problem the user must fix; the CLI maps it to exit code 2. */
public class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
