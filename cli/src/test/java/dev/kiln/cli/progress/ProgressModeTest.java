package dev.kiln.cli.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.config.ConfigException;
import org.junit.jupiter.api.Test;

class ProgressModeTest {
  @Test
  void autoDrawsBarsOnlyOnATerminal() {
    assertEquals(ProgressMode.BAR, ProgressMode.resolve("auto", true));
    assertEquals(ProgressMode.PLAIN, ProgressMode.resolve("auto", false));
    assertEquals(ProgressMode.PLAIN, ProgressMode.resolve(null, false), "auto is the default");
  }

  @Test
  void anExplicitModeWinsOverTheTerminal() {
    assertEquals(ProgressMode.PLAIN, ProgressMode.resolve("plain", true));
    assertEquals(ProgressMode.BAR, ProgressMode.resolve("BAR", false));
    assertEquals(ProgressMode.NONE, ProgressMode.resolve("none", true));
  }

  @Test
  void anUnknownModeNamesTheOptionAndItsValues() {
    ConfigException e = assertThrows(ConfigException.class, () -> ProgressMode.resolve("fancy", true));
    assertEquals("--progress must be auto, bar, plain or none, was 'fancy'", e.getMessage());
  }

  @Test
  void aForkedTestJvmWritingToPipesIsNoTerminal() {
    assertFalse(ProgressMode.isTerminal(), "surefire's fork writes to pipes: auto must mean plain lines here");
  }
}
