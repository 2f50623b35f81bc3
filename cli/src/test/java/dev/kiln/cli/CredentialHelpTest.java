package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --help} of every command: secrets are never shown passed as flags, and the safe places are named. */
class CredentialHelpTest {
  /** A flag value that is a credential: {@code s3.secret-key=…}, {@code password=…}, {@code sasl.jaas.config=…}. */
  private static final Pattern SECRET_AS_FLAG =
      Pattern.compile("(secret|access)[-.]key=|password=|token=|jaas\\.config=|account\\.key[^ ]*=", Pattern.CASE_INSENSITIVE);

  private static List<CommandLine> all(CommandLine cli) {
    List<CommandLine> out = new ArrayList<>(List.of(cli));
    cli.getSubcommands().values().forEach(c -> out.addAll(all(c)));
    return out;
  }

  @Test
  void helpNeverSuggestsSecretsOnTheCommandLine() {
    int withFs = 0;
    for (CommandLine c : all(Kiln.commandLine())) {
      String help = c.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
      assertFalse(SECRET_AS_FLAG.matcher(help).find(), c.getCommandName() + " --help: " + help);
      if (help.contains("--fs")) {
        withFs++;
        String lower = help.toLowerCase(Locale.ROOT);
        assertTrue(help.contains("AWS_SECRET_ACCESS_KEY") && lower.contains("config file"),
            c.getCommandName() + " --help names the environment and the config file for keys: " + help);
      }
    }
    assertTrue(withFs >= 4, "build, search, eval, serve and the snapshots commands take --fs: " + withFs);
  }
}
