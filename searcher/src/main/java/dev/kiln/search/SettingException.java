package dev.kiln.search;

import dev.kiln.config.ConfigException;
import java.util.function.Function;

/**
 * A search setting the library refuses, naming it in the library's own terms ({@link Setting#key()}):
 * {@code "alpha must be in [0, 1], was 2.0"}. A front end renders the same message with its own name for
 * the setting ({@link #message(Function)}): the CLI with its flag, the HTTP service with its query
 * parameter. A usage error: exit 2 on the command line, HTTP 400 from the service.
 */
public class SettingException extends ConfigException {
  private final String before;
  private final Setting setting;
  private final String after;

  /** The message {@code before + name + after}, the setting's name in the middle. */
  public SettingException(String before, Setting setting, String after) {
    super(before + setting.key() + after);
    this.before = before;
    this.setting = setting;
    this.after = after;
  }

  /** The message {@code name + after}: {@code new SettingException(Setting.EF, " must be >= 0")}. */
  public SettingException(Setting setting, String after) {
    this("", setting, after);
  }

  /** The setting refused. */
  public Setting setting() {
    return setting;
  }

  /** This message with the setting called what {@code names} calls it (a flag, a parameter). */
  public String message(Function<Setting, String> names) {
    return before + names.apply(setting) + after;
  }

  /** This message without the setting's name, where the context names it (an API key's filter binding). */
  public String messageWithoutSetting() {
    return (before.stripTrailing() + " " + after.stripLeading()).strip();
  }
}
