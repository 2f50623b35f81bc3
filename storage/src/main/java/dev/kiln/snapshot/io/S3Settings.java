package dev.kiln.snapshot.io;

import dev.kiln.config.ConfigException;
import java.net.URI;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where and how to reach S3 for a snapshots root: the same keys and environment variables as the
 * Flink S3 plugin ({@link FlinkFileSystems}) — {@code s3.endpoint}, {@code s3.path.style.access},
 * {@code s3.access-key}, {@code s3.secret-key} from the build's {@code filesystem:} settings, else
 * {@code AWS_ENDPOINT_URL_S3} / {@code AWS_ENDPOINT_URL}, {@code AWS_ACCESS_KEY_ID},
 * {@code AWS_SECRET_ACCESS_KEY} — plus {@code s3.region} ({@code AWS_REGION}, default
 * {@code us-east-1}) and {@code s3.conditional-writes} ({@code true} by default; {@code false} for a
 * store that rejects or ignores {@code If-Match}/{@code If-None-Match} on PUT, see docs/FORMATS.md) and
 * {@code s3.max-attempts} (attempts per request, retries included: {@value #DEFAULT_MAX_ATTEMPTS} by
 * default, see {@link S3SnapshotStorage}).
 *
 * @param endpoint a custom endpoint (S3-compatible servers), or null for AWS
 * @param accessKey null: the SDK's default credential chain
 */
public record S3Settings(URI endpoint, boolean pathStyle, String accessKey, String secretKey, String region,
    boolean conditionalWrites, int maxAttempts) {

  public static final String CONDITIONAL_WRITES = "s3.conditional-writes";
  public static final String MAX_ATTEMPTS = "s3.max-attempts";
  public static final int DEFAULT_MAX_ATTEMPTS = 8;

  /** Settings from {@code settings} over the process environment. */
  public static S3Settings of(Map<String, String> settings) {
    return of(settings, System.getenv());
  }

  static S3Settings of(Map<String, String> settings, Map<String, String> env) {
    Map<String, String> s = merged(settings, env);
    String endpoint = s.get("s3.endpoint");
    // A custom endpoint implies path-style access unless set otherwise, as Flink's S3 plugin is told.
    boolean pathStyle = Boolean.parseBoolean(s.getOrDefault("s3.path.style.access", endpoint != null ? "true" : "false"));
    return new S3Settings(endpoint == null ? null : URI.create(endpoint), pathStyle, s.get("s3.access-key"),
        s.get("s3.secret-key"), s.getOrDefault("s3.region", "us-east-1"),
        !"false".equals(s.getOrDefault(CONDITIONAL_WRITES, "true").trim().toLowerCase(Locale.ROOT)),
        maxAttempts(s.get(MAX_ATTEMPTS)));
  }

  private static int maxAttempts(String value) {
    if (value == null) {
      return DEFAULT_MAX_ATTEMPTS;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= 20) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new ConfigException(MAX_ATTEMPTS + " must be a whole number from 1 to 20 (attempts per S3 request, retries"
        + " included), was '" + value + "'");
  }

  /** The S3 keys the environment gives, with {@code settings} over them (what {@link #of} reads). */
  public static Map<String, String> merged(Map<String, String> settings) {
    return merged(settings, System.getenv());
  }

  static Map<String, String> merged(Map<String, String> settings, Map<String, String> env) {
    Map<String, String> s = new HashMap<>();
    put(s, "s3.endpoint", env.get("AWS_ENDPOINT_URL_S3"));
    if (!s.containsKey("s3.endpoint")) {
      put(s, "s3.endpoint", env.get("AWS_ENDPOINT_URL"));
    }
    put(s, "s3.access-key", env.get("AWS_ACCESS_KEY_ID"));
    put(s, "s3.secret-key", env.get("AWS_SECRET_ACCESS_KEY"));
    put(s, "s3.region", env.get("AWS_REGION"));
    if (!s.containsKey("s3.region")) {
      put(s, "s3.region", env.get("AWS_DEFAULT_REGION"));
    }
    settings.forEach((k, v) -> put(s, k, v));
    return s;
  }

  private static void put(Map<String, String> s, String key, String value) {
    if (value != null && !value.isBlank()) {
      s.put(key, value.trim());
    }
  }

  /** Whether a root or corpus URI is served by this storage ({@code s3://}, {@code s3a://}, {@code s3p://}). */
  public static boolean isS3(String uri) {
    String lower = uri.toLowerCase(Locale.ROOT);
    return lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("s3p://");
  }

  @Override
  public String toString() {
    return "S3Settings[endpoint=" + endpoint + ", pathStyle=" + pathStyle + ", region=" + region
        + ", credentials=" + (accessKey != null ? "static" : "default chain") + ", conditionalWrites="
        + conditionalWrites + ", maxAttempts=" + maxAttempts + "]";
  }
}
