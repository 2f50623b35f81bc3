package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class KeyBitsTest {
  /** The definition: a lowercase SHA-256 hex key's first 128 bits as they are, else SHA-256 of its UTF-8. */
  private static long[] plain(String key) throws Exception {
    if (key.length() == 64 && key.substring(0, 32).matches("[0-9a-f]{32}")) {
      return new long[] {Long.parseUnsignedLong(key.substring(0, 16), 16), Long.parseUnsignedLong(key.substring(16, 32), 16)};
    }
    ByteBuffer b = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    return new long[] {b.getLong(0), b.getLong(8)};
  }

  @Test
  void aKeyGivesTheSameBitsAsTextAndAsUtf8BytesAtAnyOffset() throws Exception {
    String hex = "ffee0123456789abcdef0123456789ab" + "0".repeat(32);
    List<String> keys = List.of(hex, hex.toUpperCase(Locale.ROOT), hex.substring(1) + "g",
        "doc-000042", "", "caf\u00e9/\ud83d\ude00", "z".repeat(64), "9".repeat(32) + "\u00e9".repeat(32), "a".repeat(32) + "\ud83d\ude00".repeat(16),
        "a".repeat(32) + "\ud83d\ude00".repeat(17));
    for (String key : keys) {
      long[] want = plain(key);
      assertArrayEquals(want, KeyBits.of(key), key);
      byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
      byte[] padded = new byte[utf8.length + 7];
      System.arraycopy(utf8, 0, padded, 3, utf8.length);
      assertArrayEquals(want, KeyBits.of(padded, 3, utf8.length), key + " as bytes");
      // twice in a row on one thread: the reused digest starts clean
      assertArrayEquals(want, KeyBits.of(padded, 3, utf8.length), key + " again");
    }
  }

  @Test
  void anIdIsAlwaysHashedSoHexLookingIdsSharingTheirFirstDigitsDiffer() {
    String a = "0".repeat(60) + "0001";
    String b = "0".repeat(60) + "0002";
    assertArrayEquals(KeyBits.of(a), KeyBits.of(b), "as content keys they share their bits");
    assertFalse(Arrays.equals(KeyBits.ofId(a), KeyBits.ofId(b)), "as ids they do not");
    byte[] utf8 = ("xx" + a).getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(KeyBits.ofId(a), KeyBits.ofId(utf8, 2, a.length()), "bytes and string agree");
  }
}
