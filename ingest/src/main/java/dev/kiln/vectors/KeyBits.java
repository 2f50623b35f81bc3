package dev.kiln.vectors;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A content key as 128 bits, so that millions of keys fit in two {@code long}s each instead of a
 * {@code String} and a map entry. Content keys are SHA-256 hex, and their first 128 bits are used as
 * they are; any other string is hashed with SHA-256 first. Two different keys share 128 bits with
 * probability about n² / 2¹²⁹ — nil for any corpus.
 */
public final class KeyBits {
  private KeyBits() {}

  /**
   * One digest per thread: a rebuild hashes every kept document id two or three times (millions of
   * ids), and looking up a new digest each time cost more than the hashing.
   */
  private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  });

  /**
   * A document id as 128 bits: always the first half of its UTF-8's SHA-256, never read as hex. Ids are
   * the corpus's: two 64-character ids that start with the same 32 hex digits (zero-padded numbers,
   * or a hostile corpus) would share the bits {@link #of(String)} reads, and a writer taking one
   * document for the other keeps what left the corpus or duplicates what changed.
   */
  public static long[] ofId(String id) {
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    return halves(utf8, 0, utf8.length);
  }

  /** As {@link #ofId(String)} for an id given as its UTF-8 bytes (an index term). */
  public static long[] ofId(byte[] utf8, int offset, int length) {
    return halves(utf8, offset, length);
  }

  /**
   * A content key (SHA-256 hex: its first 128 bits as they are; any other string hashed) as 128 bits.
   * Both halves at once: one hash for a non-hex key instead of two. Not for document ids: {@link #ofId}.
   */
  public static long[] of(String key) {
    if (isHex(key)) {
      return new long[] {Long.parseUnsignedLong(key, 0, 16, 16), Long.parseUnsignedLong(key, 16, 32, 16)};
    }
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    return halves(utf8, 0, utf8.length);
  }

  /**
   * As {@link #of(String)} for a key given as its UTF-8 bytes (an index term), without decoding it
   * into a string first.
   */
  public static long[] of(byte[] utf8, int offset, int length) {
    if (isHex(utf8, offset, length)) {
      return new long[] {hexLong(utf8, offset), hexLong(utf8, offset + 16)};
    }
    return halves(utf8, offset, length);
  }

  private static long[] halves(byte[] bytes, int offset, int length) {
    MessageDigest md = DIGEST.get();
    md.reset();
    md.update(bytes, offset, length);
    ByteBuffer b = ByteBuffer.wrap(md.digest());
    return new long[] {b.getLong(0), b.getLong(8)};
  }

  private static boolean isHex(String key) {
    if (key.length() != 64) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      if (!isHexDigit(key.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** As {@link #isHex(String)} on the key's UTF-8: 32 hex digits, then bytes of 32 more UTF-16 chars. */
  private static boolean isHex(byte[] b, int offset, int length) {
    if (length < 64) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      if (!isHexDigit(b[offset + i])) {
        return false;
      }
    }
    int chars = 0;
    for (int i = offset + 32; i < offset + length; i++) {
      int c = b[i] & 0xFF;
      if ((c & 0xC0) != 0x80) {
        chars += c >= 0xF0 ? 2 : 1; // a four-byte sequence is a surrogate pair in a String
      }
    }
    return chars == 32;
  }

  private static boolean isHexDigit(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  private static long hexLong(byte[] b, int offset) {
    long v = 0;
    for (int i = 0; i < 16; i++) {
      int c = b[offset + i];
      v = (v << 4) | (c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
  }
}
