package dev.kiln.search.filter;

import dev.kiln.config.ConfigException;

/**
 * A filter the searcher refuses: malformed, or a range on a key the snapshot did not index for
 * ranges. A usage error: exit 2 on the command line, HTTP 400 from the service.
 */
public final class FilterException extends ConfigException {
  public FilterException(String message) {
    super(message);
  }
}
