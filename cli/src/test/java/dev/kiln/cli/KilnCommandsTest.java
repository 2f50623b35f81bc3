package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The top-level parser: a command line naming its command first gets that command alone (a cold start
 * reads one command's annotations, not seven); help and a misspelt command still see all of them.
 */
class KilnCommandsTest {
  @Test
  void eachNameIsItsCommandsOwnAnnotatedName() {
    for (Map.Entry<String, Class<?>> e : Kiln.COMMANDS.entrySet()) {
      assertEquals(e.getKey(), e.getValue().getAnnotation(Command.class).name(), e.getValue().getName());
    }
  }

  @Test
  void aNamedCommandGetsAParserOfThatCommandAlone() {
    for (String name : Kiln.COMMANDS.keySet()) {
      CommandLine cli = Kiln.commandLine(name, "--help");
      assertEquals(List.of(name), List.copyOf(cli.getSubcommands().keySet()), name);
    }
  }

  @Test
  void helpAndNoArgumentsListEveryCommand() {
    assertEquals(List.copyOf(Kiln.COMMANDS.keySet()), List.copyOf(Kiln.commandLine().getSubcommands().keySet()));
    assertEquals(List.copyOf(Kiln.COMMANDS.keySet()),
        List.copyOf(Kiln.commandLine("--help").getSubcommands().keySet()));
    String[] out = new String[1];
    int code = capture(out, "--help");
    assertEquals(Kiln.OK, code);
    for (String name : Kiln.COMMANDS.keySet()) {
      assertTrue(out[0].contains("  " + name + " "), name + " in: " + out[0]);
    }
  }

  @Test
  void aMisspeltCommandIsAUsageErrorSuggestingTheRightOne() {
    String[] err = new String[1];
    int code = captureErr(err, "serch", "volcano");
    assertEquals(Kiln.USAGE, code, err[0]);
    assertTrue(err[0].contains("serch") && err[0].contains("search"), err[0]);
  }

  @Test
  void aNamedCommandsHelpStillNamesTheParent() {
    String[] out = new String[1];
    assertEquals(Kiln.OK, capture(out, "search", "--help"));
    assertTrue(out[0].startsWith("Usage: kiln search "), out[0]);
  }

  private static int capture(String[] out, String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      return Kiln.execute(args);
    } finally {
      System.setOut(original);
      out[0] = bytes.toString(StandardCharsets.UTF_8);
    }
  }

  private static int captureErr(String[] err, String... args) {
    PrintStream original = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      return Kiln.execute(args);
    } finally {
      System.setErr(original);
      err[0] = bytes.toString(StandardCharsets.UTF_8);
    }
  }
}
