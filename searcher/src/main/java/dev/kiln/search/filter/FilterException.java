package dev.kiln.search.filter;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;

/**
 * A filter the searcher refuses: malformed, or a range on a key the snapshot did not index for
 * ranges. A usage error: exit 2 on the command line, HTTP 400 from the service. Its message names the
 * filter as {@link Setting#FILTER}, which each front end calls by its own name.
 */
public final class FilterException extends SettingException {
  /** The message {@code before + "filter" + after}. */
  public FilterException(String before, String after) {
    super(before, Setting.FILTER, after);
  }
}
