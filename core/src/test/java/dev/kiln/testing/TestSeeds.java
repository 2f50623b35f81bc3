package dev.kiln.testing;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The one seeding scheme of Kiln's randomised tests. A run has one base seed: {@code -Dkiln.tests.seed=N}
 * (decimal or {@code 0x} hex), {@code -Dkiln.tests.seed=random} for a fresh one, or by default a fixed
 * value so that CI is repeatable. Each test derives its own seed from the base and its unique id, so
 * adding a test does not change what the others draw. A failing test names the base seed that
 * reproduces it.
 *
 * <p>Use: {@code @ExtendWith(TestSeeds.class)} on the class and a {@link Random} parameter on the test
 * (or on a {@code @BeforeAll}/{@code @BeforeEach} method), or {@link #derive(String)} for a seed of
 * one's own.
 */
public final class TestSeeds implements ParameterResolver, TestExecutionExceptionHandler {
  public static final String PROPERTY = "kiln.tests.seed";
  /** "kiln" in ASCII: the default base seed. */
  private static final long DEFAULT_BASE = 0x6B696C6EL;
  private static final long BASE = base();

  private static long base() {
    String value = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
    if (value.isEmpty()) {
      return DEFAULT_BASE;
    }
    if (value.equals("random")) {
      long seed = new Random().nextLong();
      System.err.println("kiln tests: base seed " + hex(seed) + " (-D" + PROPERTY + "=" + hex(seed) + " repeats it)");
      return seed;
    }
    return value.startsWith("0x") ? Long.parseUnsignedLong(value.substring(2), 16) : Long.parseLong(value);
  }

  private static String hex(long seed) {
    return "0x" + Long.toHexString(seed);
  }

  /** The base seed of this run. */
  public static long baseSeed() {
    return BASE;
  }

  /** A seed for {@code name} (a test's or a fixture's), derived from the base seed. */
  public static long derive(String name) {
    long h = BASE;
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ b) * 0x100000001B3L;
    }
    // SplitMix64 finaliser: nearby names give unrelated seeds.
    h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
    return h ^ (h >>> 31);
  }

  /** What a failure report adds: the base seed and the command-line flag that repeats the run. */
  public static String reproduceLine() {
    return "randomised test: reproduce with -D" + PROPERTY + "=" + hex(BASE);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Random.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return new Random(derive(context.getUniqueId()));
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    failure.addSuppressed(new SeedInfo(reproduceLine() + " (" + context.getDisplayName() + ")"));
    throw failure;
  }

  /** Carries the seed line in the failure's report; never thrown by itself. */
  private static final class SeedInfo extends RuntimeException {
    SeedInfo(String message) {
      super(message, null, false, false);
    }
  }
}
