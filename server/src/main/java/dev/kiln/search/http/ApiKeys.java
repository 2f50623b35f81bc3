package dev.kiln.search.http;

import dev.kiln.config.ConfigException;
import dev.kiln.search.SettingException;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The API keys of {@code kiln serve --api-keys FILE} (format in docs/FORMATS.md, "API keys file"):
 * one key a line, as {@code sha256:HEX} of the key or as the key itself, optionally followed by
 * {@code name=value} bindings that every search made with the key is held to.
 *
 * <p>Only SHA-256 digests are kept in memory; a presented key is hashed and looked up. A file that
 * others may write is refused (anyone could add a key), and so is a file holding plain keys that
 * others may read.
 */
public final class ApiKeys {
  /** Shortest plain key accepted: shorter ones can be guessed. */
  static final int MIN_KEY_LENGTH = 16;

  /**
   * One key's rights.
   *
   * @param line where it is in the file, for logs (never the key)
   * @param binding metadata conditions every search with the key is ANDed with; empty: none
   */
  public record Key(int line, MetadataFilter binding) {
    /** Whether the key is bound to metadata (a tenant's key), so it may not read the whole service. */
    public boolean bound() {
      return !binding.isEmpty();
    }

    /**
     * The request's filter narrowed to the binding: on a bound metadata key only values both allow
     * remain (a chunk has one value per key, so that is the AND of both); other keys, and every range
     * condition, are kept as requested. Empty when no chunk can satisfy both, e.g. {@code tenant=globex} asked with a key
     * bound to {@code tenant=acme}.
     */
    public Optional<MetadataFilter> narrow(MetadataFilter requested) {
      Map<String, Set<String>> out = new LinkedHashMap<>();
      requested.conditions().forEach((k, v) -> out.put(k, new LinkedHashSet<>(v)));
      for (Map.Entry<String, Set<String>> bound : binding.conditions().entrySet()) {
        Set<String> values = out.get(bound.getKey());
        if (values == null) {
          out.put(bound.getKey(), new LinkedHashSet<>(bound.getValue()));
        } else {
          values.retainAll(bound.getValue());
          if (values.isEmpty()) {
            return Optional.empty();
          }
        }
      }
      return Optional.of(requested.withConditions(out));
    }
  }

  private final Map<String, Key> byDigest;

  private ApiKeys(Map<String, Key> byDigest) {
    this.byDigest = Map.copyOf(byDigest);
  }

  /** Reads and checks {@code file}; problems are {@link ConfigException}s naming {@code --api-keys}. */
  public static ApiKeys load(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("--api-keys " + file + ": cannot read it: " + e.getMessage(), e);
    }
    Map<String, Key> keys = new HashMap<>();
    boolean plainKeys = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\\s+");
      String digest;
      if (fields[0].startsWith("sha256:")) {
        digest = fields[0].substring("sha256:".length()).toLowerCase(Locale.ROOT);
        if (!digest.matches("[0-9a-f]{64}")) {
          throw bad(file, i, "sha256: must be followed by 64 hex digits");
        }
      } else {
        if (fields[0].length() < MIN_KEY_LENGTH || fields[0].contains("=")) {
          throw bad(file, i, "a key must be at least " + MIN_KEY_LENGTH
              + " characters without '=' (or sha256:HEX of one)");
        }
        digest = sha256(fields[0]);
        plainKeys = true;
      }
      Map<String, List<String>> binding = new LinkedHashMap<>();
      for (int f = 1; f < fields.length; f++) {
        int eq = fields[f].indexOf('=');
        if (eq <= 0 || eq == fields[f].length() - 1) {
          throw bad(file, i, "expected name=value after the key, got '" + fields[f] + "'");
        }
        binding.computeIfAbsent(fields[f].substring(0, eq), k -> new ArrayList<>())
            .add(fields[f].substring(eq + 1));
      }
      MetadataFilter filter;
      try {
        filter = MetadataFilter.of(binding);
      } catch (RuntimeException e) { // the line's binding is a filter: the message need not say so
        throw bad(file, i, e instanceof SettingException s ? s.messageWithoutSetting() : e.getMessage());
      }
      if (keys.putIfAbsent(digest, new Key(i + 1, filter)) != null) {
        throw bad(file, i, "the same key appears twice");
      }
    }
    if (keys.isEmpty()) {
      throw new ConfigException("--api-keys " + file + " holds no key: every request would be refused");
    }
    checkPermissions(file, plainKeys);
    return new ApiKeys(keys);
  }

  private static ConfigException bad(Path file, int index, String why) {
    return new ConfigException("--api-keys " + file + " line " + (index + 1) + ": " + why);
  }

  private static void checkPermissions(Path file, boolean plainKeys) {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view == null) {
      return; // not a POSIX file system: documented, nothing to check
    }
    Set<PosixFilePermission> perms;
    try {
      perms = view.readAttributes().permissions();
    } catch (IOException e) {
      throw new ConfigException("--api-keys " + file + ": cannot read its permissions: " + e.getMessage(), e);
    }
    if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new ConfigException("--api-keys " + file + " may be written by other users, who could add "
          + "keys: chmod go-w it");
    }
    if (plainKeys && (perms.contains(PosixFilePermission.GROUP_READ)
        || perms.contains(PosixFilePermission.OTHERS_READ))) {
      throw new ConfigException("--api-keys " + file + " holds plain keys and may be read by other "
          + "users: chmod 600 it, or store sha256:HEX digests instead");
    }
  }

  /** The key's rights, or {@code null} for an unknown key. */
  Key lookup(String presented) {
    return presented == null || presented.isEmpty() ? null : byDigest.get(sha256(presented));
  }

  public int size() {
    return byDigest.size();
  }

  /** Lower-case hex SHA-256 of the key's UTF-8 bytes: what a {@code sha256:} line holds. */
  public static String sha256(String key) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
