package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChangelogConfig;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.testing.FuzzTries;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Fuzzes the record parsers on well-formed JSON of every shape: {@link RecordParser} on random objects
 * (ids of every type, nested metadata, vectors of NaN, huge numbers, strings), with and without a
 * model's vector check, and {@link ChangelogRecordParser} (Kiln's envelope and {@link DebeziumEnvelope})
 * on random envelopes and tombstone keys. Each parse gives a document (or change) or a {@link
 * MalformedRecordException} with a {@link QuarantineReason} code; nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class RecordParserFuzzTest {
  static final Duration BUDGET = Duration.ofSeconds(5);
  static final String TOPIC = "docs";

  private final RecordParser plain = new RecordParser(List.of("file:/corpus"));
  private final RecordParser withVectors = new RecordParser(List.of("file:/corpus"), new IngestConfig(),
      new SuppliedVectors(4, true, 1e-3));
  private final List<ChangelogRecordParser> changelogs = List.of(changelog(ChangelogConfig.FORMAT_AUTO, ""),
      changelog(ChangelogConfig.FORMAT_KILN, "deleted"), changelog(ChangelogConfig.FORMAT_DEBEZIUM, "__deleted"));

  static ChangelogRecordParser changelog(String format, String softDeleteField) {
    ChangelogConfig config = new ChangelogConfig();
    config.format = format;
    config.softDeleteField = softDeleteField;
    return new ChangelogRecordParser(TOPIC, new IngestConfig(), config);
  }

  @Property(tries = 700)
  void recordParserOnRandomObjects(@ForAll("documents") String json) {
    RawRecord r = RawRecord.of("file:/corpus/a.jsonl", 0, InputFormat.JSONL, json);
    assertTimeoutPreemptively(BUDGET, () -> {
      JsonLinesFuzzTest.assertParsesOrQuarantines(plain, r);
      JsonLinesFuzzTest.assertParsesOrQuarantines(withVectors, r);
    });
  }

  @Property(tries = 700)
  void changelogOnRandomEnvelopes(@ForAll("envelopes") String json) {
    RawRecord r = RawRecord.of(ChangelogRecordParser.sourceUri(TOPIC, 2), 7, InputFormat.JSONL, json);
    assertTimeoutPreemptively(BUDGET, () -> changelogs.forEach(p -> assertChangeOrQuarantine(p, r)));
  }

  @Property(tries = 200)
  void changelogOnRandomTombstoneKeys(@ForAll("keys") String key) {
    RawRecord r = RawRecord.tombstone(ChangelogRecordParser.sourceUri(TOPIC, 0), 3, key, 11, 0);
    assertTimeoutPreemptively(BUDGET, () -> changelogs.forEach(p -> assertChangeOrQuarantine(p, r)));
  }

  static void assertChangeOrQuarantine(ChangelogRecordParser parser, RawRecord r) {
    try {
      ChangeOp op = parser.parse(r);
      assertNotNull(op.id());
    } catch (MalformedRecordException e) {
      assertTrue(JsonLinesFuzzTest.REASONS.contains(e.reason()), () -> "unknown quarantine reason " + e.reason());
    }
  }

  // ---- generators: JSON text, so that values Jackson would never write (lone surrogates, NaN) occur ----

  static Arbitrary<String> strings() {
    return Arbitraries.oneOf(
        Arbitraries.of("", " ", "x", "d1", "42", "upsert", "delete", "UPSERT", "c", "u", "r", "d", "true", "false",
            "\\ud800", "\\udc00x", "\\u0000", "\\n\\t", "é", "中文", "😀", "\\\"", "a/b", "file:/corpus/x"),
        Arbitraries.strings().ofMaxLength(20).map(RecordParserFuzzTest::escape))
        .map(s -> "\"" + s + "\"");
  }

  static String escape(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\' || c < 0x20 || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  static Arbitrary<String> scalars() {
    return Arbitraries.oneOf(strings(),
        Arbitraries.of("null", "true", "false", "0", "-0", "1", "-1", "0.5", "1e400", "-1e400", "1e-400", "NaN",
            "-Infinity", "Infinity", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "123456789012345678901234567890", "3.4028236e38", "1.0E-46"),
        Arbitraries.doubles().map(String::valueOf), Arbitraries.longs().map(String::valueOf));
  }

  static Arbitrary<String> fieldNames() {
    return Arbitraries.oneOf(Arbitraries.of("\"_id\"", "\"id\"", "\"title\"", "\"text\"", "\"metadata\"",
        "\"vector\"", "\"op\"", "\"before\"", "\"after\"", "\"payload\"", "\"schema\"", "\"source\"",
        "\"deleted\"", "\"__deleted\"", "\"content\"", "\"\""), strings());
  }

  /** Any JSON value, nested up to {@code depth}. */
  static Arbitrary<String> values(int depth) {
    if (depth == 0) {
      return scalars();
    }
    Arbitrary<String> inner = Arbitraries.lazy(() -> values(depth - 1));
    Arbitrary<String> array = inner.list().ofMaxSize(6).map(l -> "[" + String.join(",", l) + "]");
    Arbitrary<String> object = Combinators.combine(fieldNames(), inner).as((k, v) -> k + ":" + v).list().ofMaxSize(6)
        .map(l -> "{" + String.join(",", l) + "}");
    return Arbitraries.frequencyOf(
        Tuple.of(3, scalars()), Tuple.of(1, array), Tuple.of(1, object));
  }

  /** An object of document fields (each present or not) with values of any type. */
  static Arbitrary<String> documentObjects(int depth) {
    Arbitrary<String> vector = Arbitraries.oneOf(
        scalars().list().ofMaxSize(6).map(l -> "[" + String.join(",", l) + "]"),
        Arbitraries.floats().list().ofSize(4).map(l -> "[" + l.stream().map(String::valueOf)
            .collect(Collectors.joining(",")) + "]"),
        values(depth));
    Arbitrary<String> field = Arbitraries.oneOf(
        Combinators.combine(Arbitraries.of("\"_id\"", "\"id\"", "\"title\"", "\"text\""), values(depth))
            .as((k, v) -> k + ":" + v),
        Combinators.combine(Arbitraries.of("\"_id\"", "\"id\"", "\"text\""), strings()).as((k, v) -> k + ":" + v),
        values(depth).map(v -> "\"metadata\":" + v),
        vector.map(v -> "\"vector\":" + v),
        Combinators.combine(fieldNames(), values(depth)).as((k, v) -> k + ":" + v));
    return field.list().ofMaxSize(8).map(l -> "{" + String.join(",", l) + "}");
  }

  @Provide
  Arbitrary<String> documents() {
    return Arbitraries.frequencyOf(Tuple.of(8, documentObjects(3)), Tuple.of(1, values(3)));
  }

  /** Kiln's and Debezium's envelopes, the rows inside them random, and Kafka Connect's schema wrapper. */
  @Provide
  Arbitrary<String> envelopes() {
    Arbitrary<String> op = Arbitraries.oneOf(
        Arbitraries.of("upsert", "delete", "DELETE", "c", "u", "r", "d", "t", "").map(s -> "\"" + s + "\""), scalars());
    Arbitrary<String> row = Arbitraries.oneOf(documentObjects(2), values(2));
    Arbitrary<String> field = Arbitraries.oneOf(op.map(v -> "\"op\":" + v), row.map(v -> "\"after\":" + v),
        row.map(v -> "\"before\":" + v), Combinators.combine(fieldNames(), values(2)).as((k, v) -> k + ":" + v),
        Combinators.combine(Arbitraries.of("\"_id\"", "\"id\"", "\"text\"", "\"deleted\"", "\"__deleted\""),
            scalars()).as((k, v) -> k + ":" + v));
    Arbitrary<String> event = field.list().ofMaxSize(6).map(l -> "{" + String.join(",", l) + "}");
    return Arbitraries.oneOf(event, event.map(e -> "{\"payload\":" + e + "}"),
        Combinators.combine(values(1), event).as((s, e) -> "{\"schema\":" + s + ",\"payload\":" + e + "}"));
  }

  @Provide("keys")
  Arbitrary<String> tombstoneKeys() {
    return Arbitraries.oneOf(values(2), Arbitraries.strings().ofMaxLength(20),
        Combinators.combine(fieldNames(), values(1)).as((k, v) -> "{" + k + ":" + v + "}"),
        values(1).map(v -> "{\"schema\":{},\"payload\":" + v + "}"));
  }
}
