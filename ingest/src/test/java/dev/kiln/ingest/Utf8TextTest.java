package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8TextTest {
  /** What "well-formed" must mean: Java decodes the bytes into a string whose encoding is the bytes. */
  private static boolean roundTrips(byte[] b) {
    return Arrays.equals(new String(b, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8), b);
  }

  @Test
  void wellFormedAgreesWithJavasDecoderOnEverySequenceOfUpToThreeBytes() {
    byte[][] arrays = {new byte[1], new byte[2], new byte[3]};
    for (byte[] b : arrays) {
      long all = 1L << (8 * b.length);
      for (long v = 0; v < all; v++) {
        for (int i = 0; i < b.length; i++) {
          b[i] = (byte) (v >>> (8 * i));
        }
        if (Utf8Text.isWellFormed(b) != roundTrips(b)) {
          throw new AssertionError("disagrees on " + Arrays.toString(b));
        }
      }
    }
  }

  @Test
  void wellFormedAgreesWithJavasDecoderOnFourByteFormsAndMixedTexts() {
    Random r = new Random(7);
    byte[] b = new byte[4];
    for (int i = 0; i < 2_000_000; i++) {
      // lead bytes F0..F4 and their neighbours, continuation bytes around 80..BF
      b[0] = (byte) (0xEE + r.nextInt(10));
      for (int j = 1; j < 4; j++) {
        b[j] = (byte) (0x70 + r.nextInt(0x60));
      }
      assertEquals(roundTrips(b), Utf8Text.isWellFormed(b), Arrays.toString(b));
    }
    String[] pieces = {"a", "plain ascii words ", "é", "α-synuclein", "–", "中文", "😀", "\uFFFD", "\u0000"};
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      int n = r.nextInt(30);
      for (int j = 0; j < n; j++) {
        s.append(pieces[r.nextInt(pieces.length)]);
      }
      byte[] ok = s.toString().getBytes(StandardCharsets.UTF_8);
      assertTrue(Utf8Text.isWellFormed(ok), s.toString());
      if (ok.length > 0) {
        // one byte broken anywhere, also inside the eight-byte ASCII steps
        byte[] bad = ok.clone();
        bad[r.nextInt(bad.length)] = (byte) (0x80 + r.nextInt(0x80));
        assertEquals(roundTrips(bad), Utf8Text.isWellFormed(bad), Arrays.toString(bad));
        byte[] cut = Arrays.copyOf(ok, r.nextInt(ok.length));
        assertEquals(roundTrips(cut), Utf8Text.isWellFormed(cut), Arrays.toString(cut));
      }
    }
  }

  @Test
  void decodesAsJavaDoesAndHandsOutItsBytesOnlyWhenTheyAreTheTextsEncoding() {
    byte[] good = "Zürich – 中文 😀".getBytes(StandardCharsets.UTF_8);
    Utf8Text text = new Utf8Text(good);
    assertEquals("Zürich – 中文 😀", text.toString());
    assertSame(good, text.wellFormed());
    assertEquals(good.length, text.byteLength());

    byte[] bad = {'a', (byte) 0xC3, 'b', (byte) 0xED, (byte) 0xA0, (byte) 0x80}; // truncated, a surrogate
    Utf8Text malformed = new Utf8Text(bad);
    assertEquals(new String(bad, StandardCharsets.UTF_8), malformed.toString());
    assertNull(malformed.wellFormed(), "its encoding is not these bytes: fingerprint the decoded text");
  }

  @Test
  void blankAsStringIsBlankSaysAlsoForNonAsciiSpace() {
    for (String s : new String[] {"", " ", " \t\n\r\u000B\f", "\u3000 \u2003", "\u00A0", " x ", "\u3000é", "中"}) {
      assertEquals(s.isBlank(), new Utf8Text(s.getBytes(StandardCharsets.UTF_8)).isBlank(), "'" + s + "'");
    }
  }

  @Test
  void aRowHoldingItRendersItAsAJsonString() throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("_id", "d1");
    row.putPOJO("text", new Utf8Text("say \"hi\" – ok".getBytes(StandardCharsets.UTF_8)));
    assertEquals("say \"hi\" – ok", row.get("text").asText());
    JsonNode parsed = new ObjectMapper().readTree(row.toString());
    assertEquals("say \"hi\" – ok", parsed.get("text").textValue(), "payload() of a quarantined row");
  }
}
