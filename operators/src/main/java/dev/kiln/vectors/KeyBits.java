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

  /** Both halves at once: one hash for a non-hex key instead of two. */
  public static long[] of(String key) {
    if (isHex(key)) {
      return new long[] {Long.parseUnsignedLong(key, 0, 16, 16), Long.parseUnsignedLong(key, 16, 32, 16)};
    }
    ByteBuffer b = hashed(key);
    return new long[] {b.getLong(0), b.getLong(8)};
  }

  static long hi(String key) {
    return isHex(key) ? Long.parseUnsignedLong(key, 0, 16, 16) : hashed(key).getLong(0);
  }

  static long lo(String key) {
    return isHex(key) ? Long.parseUnsignedLong(key, 16, 32, 16) : hashed(key).getLong(8);
  }

  private static boolean isHex(String key) {
    if (key.length() != 64) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      char c = key.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static ByteBuffer hashed(String key) {
    try {
      return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
