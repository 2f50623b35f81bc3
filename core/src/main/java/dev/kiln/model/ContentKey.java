package dev.kiln.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.snapshot.Checksums;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The content key of a chunk: what decides whether a stored vector can be reused. It hashes the
 * chunker's settings fingerprint together with everything the embedder's input is made of (title,
 * section breadcrumb and text; whether the breadcrumb replaces the title is a chunker setting, so it
 * is in the fingerprint), so two chunks with equal keys get equal vectors from one model. The model
 * is not part of the key: stored vectors are grouped by model fingerprint instead. This is the one
 * place the key is defined; the chunk stage stores it on every chunk ({@link Chunk#contentKey}).
 */
public final class ContentKey {
  private ContentKey() {}

  /** SHA-256 (hex) of the settings fingerprint, the title and the text, length-prefixed so no two splits collide. */
  public static String of(String settingsFingerprint, String title, String text) {
    MessageDigest md = Checksums.newDigest();
    update(md, settingsFingerprint);
    update(md, title);
    update(md, text);
    return HexFormat.of().formatHex(md.digest());
  }

  /**
   * As {@link #of(String, String, String)}, plus the section breadcrumb when there is one: a chunk
   * embedded under its breadcrumb must not reuse the vector of the same text under another heading.
   * Without a breadcrumb the key is the plain title-and-text key.
   */
  public static String of(String settingsFingerprint, String title, String breadcrumb, String text) {
    if (breadcrumb == null || breadcrumb.isEmpty()) {
      return of(settingsFingerprint, title, text);
    }
    MessageDigest md = Checksums.newDigest();
    update(md, settingsFingerprint);
    update(md, title);
    update(md, text);
    // A fourth length-prefixed field: no three-field input hashes the same bytes.
    update(md, breadcrumb);
    return HexFormat.of().formatHex(md.digest());
  }

  public static String of(String settingsFingerprint, Chunk chunk) {
    return of(settingsFingerprint, chunk.title(), chunk.breadcrumb(), chunk.text());
  }

  /**
   * The key a chunk travels with: the one the chunk stage gave it, else (chunks made outside the
   * chunk stage: tests, benchmarks) computed here. Partitioning, reuse and the index all use this.
   */
  public static String forChunk(String settingsFingerprint, Chunk chunk) {
    return chunk.contentKey().isEmpty() ? of(settingsFingerprint, chunk) : chunk.contentKey();
  }

  /**
   * The partition (of {@code partitions}) that owns a key. The embed stage routes chunks by this and
   * each subtask loads only the stored vectors of its own partition, so reuse memory is split across
   * subtasks.
   */
  public static int partition(String key, int partitions) {
    // The key is a uniform hash already: its first 8 hex digits are enough.
    long h = Long.parseLong(key, 0, 8, 16);
    return (int) (h % partitions);
  }

  /**
   * A fingerprint of the chunker settings for {@link #of}: every public field of the settings object
   * (so a new chunker option takes part without touching this class) and the tokenizer's model.
   */
  public static String settingsFingerprint(Object chunkerSettings, String tokenizer) {
    try {
      String json = SETTINGS_JSON.writeValueAsString(chunkerSettings);
      MessageDigest md = Checksums.newDigest();
      update(md, json);
      update(md, tokenizer);
      return HexFormat.of().formatHex(md.digest()).substring(0, 16);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot fingerprint chunker settings " + chunkerSettings, e);
    }
  }

  private static final ObjectMapper SETTINGS_JSON =
      new ObjectMapper()
          .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true);

  private static void update(MessageDigest md, String s) {
    byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    md.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length});
    md.update(b);
  }

}
