package dev.kiln.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Test hook for crash tests: when the system property {@code kiln.test.pause-at} names this point,
 * the process writes the file named by {@code kiln.test.pause-marker} and blocks until it is killed.
 * The tests then {@code kill -9} the real process; nothing is simulated. Without the property this
 * is a no-op. With {@code kiln.test.pause-resume=stdin} the process instead resumes when a line
 * arrives on its standard input, so a test can order two real processes deterministically (one pauses
 * before publishing while another publishes); a point reached again after that (one inside a loop:
 * each chunk embedded, each file gc deletes) no longer pauses.
 */
public final class PausePoint {
  public static final String PROPERTY = "kiln.test.pause-at";
  public static final String MARKER_PROPERTY = "kiln.test.pause-marker";
  public static final String RESUME_PROPERTY = "kiln.test.pause-resume";

  /** Set once the process resumed from its pause point: it pauses only once. */
  private static final AtomicBoolean RESUMED = new AtomicBoolean();

  private PausePoint() {}

  public static void reached(String name) {
    if (!name.equals(System.getProperty(PROPERTY)) || RESUMED.get()) {
      return;
    }
    String marker = System.getProperty(MARKER_PROPERTY);
    try {
      if (marker != null) {
        Files.writeString(Path.of(marker), name);
      }
      if ("stdin".equals(System.getProperty(RESUME_PROPERTY))) {
        synchronized (RESUMED) {
          if (!RESUMED.get()) {
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            RESUMED.set(true);
          }
        }
        return;
      }
      Object forever = new Object();
      synchronized (forever) {
        while (true) {
          forever.wait();
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot write pause marker " + marker, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
