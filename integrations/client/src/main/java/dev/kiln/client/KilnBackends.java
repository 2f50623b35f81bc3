package dev.kiln.client;

import dev.kiln.search.RetrievalPath;
import dev.kiln.search.Searcher;
import java.net.URI;
import java.time.Duration;

/** The ways to reach Kiln from an application: an embedded searcher, or {@code kiln serve}. */
public final class KilnBackends {
  /** How long an HTTP search may take, connection included, unless {@link #http(URI, String, Duration)} says. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private KilnBackends() {}

  /**
   * A searcher the application opened ({@code Searcher.builder()…build()}, or a {@code FederatedSearcher});
   * the application closes it, closing the backend leaves it open.
   */
  public static KilnBackend embedded(RetrievalPath searcher) {
    return new EmbeddedBackend(searcher, false);
  }

  /**
   * Opens the {@code CURRENT} snapshot of a snapshots root: a local directory, or {@code s3://…} /
   * {@code hdfs://…} with {@code dev.kiln:kiln-storage} on the classpath (downloaded and verified into the
   * local mirror first). Closing the backend closes the searcher.
   */
  public static KilnBackend open(String snapshotsRoot) {
    return new EmbeddedBackend(Searcher.builder().root(snapshotsRoot).build(), true);
  }

  /** A {@code kiln serve} at {@code baseUrl} ({@code http://127.0.0.1:8080}), without an API key. */
  public static KilnBackend http(URI baseUrl) {
    return http(baseUrl, null, DEFAULT_TIMEOUT);
  }

  /**
   * A {@code kiln serve} at {@code baseUrl}.
   *
   * @param apiKey sent as {@code Authorization: Bearer}; null for a server without {@code --api-keys}
   * @param timeout for connecting and for each search's answer
   */
  public static KilnBackend http(URI baseUrl, String apiKey, Duration timeout) {
    if (baseUrl == null || baseUrl.getScheme() == null
        || !(baseUrl.getScheme().equals("http") || baseUrl.getScheme().equals("https"))) {
      throw new IllegalArgumentException("kiln serve URL must be http:// or https://, was " + baseUrl);
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    return new HttpBackend(baseUrl, apiKey, timeout);
  }
}
