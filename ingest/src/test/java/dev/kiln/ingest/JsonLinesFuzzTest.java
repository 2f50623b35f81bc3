package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import dev.kiln.testing.FuzzTries;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Fuzzes the JSON-lines path, the most exposed reader of untrusted bytes: {@link JsonLinesReader} then
 * {@link RecordParser#parse}. Whatever the bytes (random, JSON-ish lines with broken UTF-8, lines past
 * the record limit, deep nesting), every record becomes a document or a {@link MalformedRecordException}
 * with a {@link QuarantineReason} code, within a time budget; nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class JsonLinesFuzzTest {
  /** Small, so that "huge" lines are cheap to make: the reader's limit, not the size, is what is tested. */
  static final int MAX_RECORD_BYTES = 4096;
  static final Duration BUDGET = Duration.ofSeconds(5);
  static final Set<String> REASONS = reasons();

  private final RecordParser parser = new RecordParser(List.of("file:/corpus"));

  /** Every reason code: the public string constants of {@link QuarantineReason}. */
  static Set<String> reasons() {
    Set<String> out = new TreeSet<>();
    for (Field f : QuarantineReason.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        try {
          out.add((String) f.get(null));
        } catch (IllegalAccessException e) {
          throw new AssertionError(e);
        }
      }
    }
    return out;
  }

  @Property(tries = 800)
  void randomBytes(@ForAll("bytes") byte[] input) {
    readAndParse(input);
  }

  @Property(tries = 1200)
  void jsonishLines(@ForAll("jsonish") byte[] input) {
    readAndParse(input);
  }

  @Property(tries = 80)
  void deepNesting(@ForAll("nested") byte[] input) {
    readAndParse(input);
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(2 * MAX_RECORD_BYTES);
  }

  /** Lines assembled from JSON fragments, broken UTF-8, control bytes and over-long runs. */
  @Provide
  Arbitrary<byte[]> jsonish() {
    Arbitrary<byte[]> fragment = Arbitraries.oneOf(
        Arbitraries.of("{", "}", "[", "]", ":", ",", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\u0000", "null",
            "true", "-", "1e999", "NaN", "Infinity", "-0", "123456789012345678901234567890", "\"_id\"", "\"id\"",
            "\"text\"", "\"title\"", "\"metadata\"", "\"vector\"", "\"a\"", "\"\"", " ", "\t", "\r", "\n", "\r\n",
            "{\"_id\": 1, \"text\": \"x\"}", "{\"_id\": \"d\", \"title\": \"t\", \"text\": \"", "é", "中", "😀")
            .map(s -> s.getBytes(StandardCharsets.UTF_8)),
        // Invalid UTF-8: lone continuation bytes, truncated sequences, an encoded surrogate, overlong NUL, 0xFF.
        Arbitraries.of(new byte[] {(byte) 0x80}, new byte[] {(byte) 0xC3}, new byte[] {(byte) 0xE2, (byte) 0x82},
            new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, new byte[] {(byte) 0xC0, (byte) 0x80},
            new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {0}),
        // A run long enough to push a line past the record limit now and then.
        Combinators.combine(Arbitraries.of('a', ' ', '"', '['), Arbitraries.integers().between(1, 3 * MAX_RECORD_BYTES))
            .as((c, n) -> String.valueOf(c).repeat(n).getBytes(StandardCharsets.UTF_8)));
    return fragment.list().ofMaxSize(60).map(JsonLinesFuzzTest::concat);
  }

  /** One line nested up to far past Jackson's depth limit, inside a record or as the record. */
  @Provide
  Arbitrary<byte[]> nested() {
    return Combinators.combine(
            Arbitraries.of("[", "{\"a\":", "{\"_id\":1,\"text\":\"x\",\"metadata\":", "{\"_id\":"),
            Arbitraries.integers().between(1, 20_000), Arbitraries.of(true, false))
        .as((open, depth, closed) -> {
          StringBuilder line = new StringBuilder(open.repeat(depth)).append("0");
          if (closed) {
            line.append((open.equals("[") ? "]" : "}").repeat(depth));
          }
          return line.append('\n').toString().getBytes(StandardCharsets.UTF_8);
        });
  }

  static byte[] concat(List<byte[]> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parts.forEach(out::writeBytes);
    return out.toByteArray();
  }

  /** Reads every line of {@code input} and parses every record, asserting the contract. */
  void readAndParse(byte[] input) {
    assertTimeoutPreemptively(BUDGET, () -> {
      List<RawRecord> records = new ArrayList<>();
      try (JsonLinesReader reader = new JsonLinesReader("file:/corpus/a.jsonl", new ByteArrayInputStream(input),
          0, Long.MAX_VALUE, 0, MAX_RECORD_BYTES)) {
        for (List<RawRecord> batch; !(batch = reader.readBatch()).isEmpty(); ) {
          records.addAll(batch);
        }
      }
      for (RawRecord r : records) {
        assertParsesOrQuarantines(parser, r);
      }
    });
  }

  /** The contract of a parser on one record: a document, or a quarantine reason Kiln knows. */
  static void assertParsesOrQuarantines(RecordParser parser, RawRecord r) {
    try {
      Document d = parser.parse(r);
      assertNotNull(d.id());
      assertNotNull(d.text());
    } catch (MalformedRecordException e) {
      assertTrue(REASONS.contains(e.reason()), () -> "unknown quarantine reason " + e.reason());
    }
  }
}
