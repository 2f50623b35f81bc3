package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.WritableTypeId;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A Parquet row's text column ({@code ingest.text-field}) as the UTF-8 bytes its file holds, decoded
 * into a string the first time it is asked for ({@link #toString}). It sits in the row's JSON tree as a
 * POJO node, whose {@code asText()} is that string, and renders as a JSON string.
 *
 * <p>Why: an incremental build fingerprints every row to find the few that changed, and the
 * fingerprint hashes the text's UTF-8. Decoding a kilobyte of text into a Java string and encoding it
 * back only to hash it was a third of a rebuild's reading and parsing; an unchanged row's text is now
 * hashed from these bytes ({@link #wellFormed}) and never decoded.
 */
public final class Utf8Text implements JsonSerializable {
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private final byte[] utf8;
  private String decoded;

  Utf8Text(byte[] utf8) {
    this.utf8 = utf8;
  }

  /** The encoded length, an upper bound of the decoded string's length. */
  public int byteLength() {
    return utf8.length;
  }

  /** The text, decoded as Java decodes UTF-8 (a malformed sequence becomes U+FFFD). */
  @Override
  public String toString() {
    String s = decoded;
    if (s == null) {
      s = new String(utf8, StandardCharsets.UTF_8);
      decoded = s;
    }
    return s;
  }

  /**
   * The bytes when they are exactly the UTF-8 encoding of {@link #toString()} — well-formed UTF-8 —,
   * else {@code null} (a malformed sequence decodes to U+FFFD, whose encoding differs from it). The
   * caller must not change them.
   */
  public byte[] wellFormed() {
    return isWellFormed(utf8) ? utf8 : null;
  }

  /** Whether the text is blank as {@link String#isBlank()} says, decoding only when a non-ASCII byte decides it. */
  public boolean isBlank() {
    for (byte b : utf8) {
      if (b < 0) {
        return toString().isBlank();
      }
      if (!Character.isWhitespace(b)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code b} is well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no surrogates,
   * nothing above U+10FFFF, no truncated sequence), which is exactly what Java's decoder turns into a
   * string without replacement. Runs of ASCII are checked eight bytes at a time.
   */
  static boolean isWellFormed(byte[] b) {
    int i = 0;
    int n = b.length;
    while (i < n) {
      if (i + 8 <= n && ((long) LONG_LE.get(b, i) & HIGH_BITS) == 0) {
        i += 8;
        continue;
      }
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
        continue;
      }
      // the sequence's length and the range its second byte must fall in (table 3-7)
      int len;
      int lo = 0x80;
      int hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
      } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : lo; // no overlong forms
        hi = c == 0xED ? 0x9F : hi; // no surrogates
      } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : lo; // no overlong forms
        hi = c == 0xF4 ? 0x8F : hi; // nothing above U+10FFFF
      } else {
        return false; // a stray continuation byte, C0, C1 or F5..FF
      }
      if (i + len > n) {
        return false;
      }
      int c1 = b[i + 1] & 0xFF;
      if (c1 < lo || c1 > hi) {
        return false;
      }
      for (int k = 2; k < len; k++) {
        if (!continuation(b[i + k])) {
          return false;
        }
      }
      i += len;
    }
    return true;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  @Override
  public void serialize(JsonGenerator gen, SerializerProvider serializers) throws IOException {
    gen.writeString(toString());
  }

  @Override
  public void serializeWithType(JsonGenerator gen, SerializerProvider serializers, TypeSerializer typeSer)
      throws IOException {
    WritableTypeId id = typeSer.writeTypePrefix(gen, typeSer.typeId(this, JsonToken.VALUE_STRING));
    serialize(gen, serializers);
    typeSer.writeTypeSuffix(gen, id);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Utf8Text t && Arrays.equals(utf8, t.utf8);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(utf8);
  }
}
