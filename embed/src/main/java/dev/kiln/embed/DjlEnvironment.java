package dev.kiln.embed;

import java.nio.file.Path;

/**
 * DJL must never reach the network: without these properties it probes a cloud metadata address and
 * tries to download engines at start-up. Set before the first DJL class loads, unless the JVM already
 * has them.
 */
public final class DjlEnvironment {
  private DjlEnvironment() {}

  public static synchronized void ensureOffline() {
    setIfAbsent("ai.djl.offline", "true");
    setIfAbsent("OPT_OUT_TRACKING", "true");
    Path cache = ModelFiles.cacheDir().resolve("djl");
    setIfAbsent("DJL_CACHE_DIR", cache.toString());
    setIfAbsent("ENGINE_CACHE_DIR", cache.toString());
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null && System.getenv(key) == null) {
      System.setProperty(key, value);
    }
  }
}
