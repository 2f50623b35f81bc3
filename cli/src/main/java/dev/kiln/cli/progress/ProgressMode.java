package dev.kiln.cli.progress;

import dev.kiln.config.ConfigException;
import java.io.Console;
import java.lang.reflect.Method;
import java.util.Locale;

/** How {@code kiln build} shows its progress: {@code --progress auto|bar|plain|none}. */
public enum ProgressMode {
  /** A bar per stage, redrawn in place, with rate and ETA: for a person at a terminal. */
  BAR,
  /** A log line per stage every few seconds, with rate and ETA: for files, pipes and CI logs. */
  PLAIN,
  /** Nothing but the closing counters table. */
  NONE;

  /**
   * The mode for a {@code --progress} value: {@code auto} (or null) is {@link #BAR} on a terminal and
   * {@link #PLAIN} otherwise, because cursor codes in a log file are noise.
   *
   * @throws ConfigException naming {@code --progress} and its values for anything else
   */
  public static ProgressMode resolve(String flag, boolean terminal) {
    String v = flag == null ? "auto" : flag.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "auto" -> terminal ? BAR : PLAIN;
      case "bar" -> BAR;
      case "plain" -> PLAIN;
      case "none" -> NONE;
      default -> throw new ConfigException("--progress must be auto, bar, plain or none, was '" + flag + "'");
    };
  }

  /**
   * Whether this process writes to a terminal. Up to Java 21 {@link System#console()} is null unless
   * both standard streams are a terminal; from Java 22 it is there whenever a console could be, and
   * {@code Console.isTerminal()} (called reflectively: the code is compiled for 21) tells.
   */
  public static boolean isTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // Java 21: a console is a terminal
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }
}
