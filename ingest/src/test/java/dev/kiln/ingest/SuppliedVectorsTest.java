package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Precomputed vectors on records: what the parser accepts, and the reason for each kind it refuses. */
class SuppliedVectorsTest {
  static final RecordParser PARSER = new RecordParser(List.of("file:/c"), new IngestConfig(),
      new SuppliedVectors(4, true, 1e-3));

  static Document parse(String vector) throws MalformedRecordException {
    return PARSER.parse(RawRecord.of("file:/c/a.jsonl", 0, InputFormat.JSONL,
        "{\"_id\": \"a\", \"title\": \"T\", \"text\": \"some text\", \"vector\": " + vector + "}"));
  }

  static String reason(String vector) {
    return assertThrows(MalformedRecordException.class, () -> parse(vector)).reason();
  }

  @Test
  void aUnitVectorOfTheModelsDimensionTravelsWithTheDocument() throws Exception {
    assertArrayEquals(new float[] {0.5f, 0.5f, 0.5f, 0.5f}, parse("[0.5, 0.5, 0.5, 0.5]").vector(), 0f);
    // within the tolerance
    assertArrayEquals(new float[] {0.6f, 0.8f, 0f, 0.0005f}, parse("[0.6, 0.8, 0, 0.0005]").vector(), 0f);
  }

  @Test
  void aMissingOrNullVectorLeavesTheRecordToTheModel() throws Exception {
    assertNull(parse("null").vector());
    assertNull(PARSER.parse(RawRecord.of("file:/c/a.jsonl", 0, InputFormat.JSONL,
        "{\"_id\": \"a\", \"text\": \"no vector\"}")).vector());
  }

  @Test
  void eachBadVectorHasItsOwnReason() {
    assertEquals(QuarantineReason.VECTOR_DIMENSION, reason("[0.6, 0.8, 0]"));
    assertEquals(QuarantineReason.VECTOR_DIMENSION, reason("[]"));
    assertEquals(QuarantineReason.VECTOR_NOT_FINITE, reason("[NaN, 0.8, 0, 0]"));
    assertEquals(QuarantineReason.VECTOR_NOT_FINITE, reason("[-Infinity, 0.8, 0, 0]"));
    assertEquals(QuarantineReason.VECTOR_NOT_FINITE, reason("[\"NaN\", 0.8, 0, 0]"));
    assertEquals(QuarantineReason.VECTOR_NOT_FINITE, reason("[1e39, 0.8, 0, 0]"));
    assertEquals(QuarantineReason.VECTOR_ZERO, reason("[0, 0, 0, 0]"));
    assertEquals(QuarantineReason.VECTOR_NOT_UNIT, reason("[1, 1, 1, 1]"));
    assertEquals(QuarantineReason.VECTOR_NOT_UNIT, reason("[0.6, 0.8, 0, 0.1]"));
    assertEquals(QuarantineReason.VECTOR_MALFORMED, reason("\"0.5 0.5 0.5 0.5\""));
    assertEquals(QuarantineReason.VECTOR_MALFORMED, reason("[0.5, 0.5, [0.5], 0.5]"));
    assertEquals(QuarantineReason.VECTOR_MALFORMED, reason("{\"0\": 1}"));
  }

  @Test
  void aDecodedVectorNamesItsFirstNonFiniteComponentWhereverItIs() throws Exception {
    // 387 dimensions: four-wide sums and a tail of three, so every position class is covered
    SuppliedVectors check = new SuppliedVectors(387, true, 1e-3);
    for (int at : new int[] {0, 1, 2, 3, 200, 383, 384, 386}) {
      for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
        float[] v = new float[387];
        v[(at + 1) % 387] = 1f;
        v[at] = bad;
        MalformedRecordException e = assertThrows(MalformedRecordException.class, () -> check.check(v));
        assertEquals(QuarantineReason.VECTOR_NOT_FINITE, e.reason());
        assertTrue(e.getMessage().startsWith("vector component " + at + " is "), e.getMessage());
      }
    }
    float[] huge = new float[387];
    huge[386] = Float.MAX_VALUE; // finite, and its square is finite as a double
    assertEquals(QuarantineReason.VECTOR_NOT_UNIT,
        assertThrows(MalformedRecordException.class, () -> check.check(huge)).reason());
    float[] unit = new float[387];
    unit[385] = 0.6f;
    unit[386] = 0.8f;
    assertArrayEquals(unit, check.check(unit.clone()), 0f);
  }

  @Test
  void aModelThatDoesNotNormaliseAcceptsAnyNonZeroLength() throws Exception {
    RecordParser raw = new RecordParser(List.of("file:/c"), new IngestConfig(), new SuppliedVectors(2, false, 1e-3));
    Document d = raw.parse(RawRecord.of("file:/c/a.jsonl", 0, InputFormat.JSONL,
        "{\"_id\": \"a\", \"text\": \"t\", \"vector\": [3, 4]}"));
    assertArrayEquals(new float[] {3f, 4f}, d.vector(), 0f);
    MalformedRecordException e = assertThrows(MalformedRecordException.class, () -> raw.parse(RawRecord.of(
        "file:/c/a.jsonl", 0, InputFormat.JSONL, "{\"_id\": \"a\", \"text\": \"t\", \"vector\": [0, 0]}")));
    assertEquals(QuarantineReason.VECTOR_ZERO, e.reason());
  }

  @Test
  void aToleranceOutsideZeroToOneIsRefusedNamingTheOption() {
    for (double bad : new double[] {0, -0.1, 1, Double.NaN}) {
      BuildConfig c = new BuildConfig();
      c.corpus = List.of("docs");
      c.snapshots = "snap";
      c.ingest.vectorUnitTolerance = bad;
      ConfigException e = assertThrows(ConfigException.class, c::validate);
      assertTrue(e.getMessage().contains("ingest.vector-unit-tolerance"), e.getMessage());
    }
    BuildConfig c = new BuildConfig();
    c.corpus = List.of("docs");
    c.snapshots = "snap";
    c.ingest.vectorField = " ";
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("vector-field"));
  }

  @Test
  void withoutAVectorCheckTheFieldIsIgnored() throws Exception {
    RecordParser plain = new RecordParser(List.of("file:/c"), new IngestConfig());
    Document d = plain.parse(RawRecord.of("file:/c/a.jsonl", 0, InputFormat.JSONL,
        "{\"_id\": \"a\", \"text\": \"t\", \"vector\": [0, 0]}"));
    assertNull(d.vector());
    assertTrue(d.metadata().keySet().stream().noneMatch(k -> k.contains("vector")));
  }
}
