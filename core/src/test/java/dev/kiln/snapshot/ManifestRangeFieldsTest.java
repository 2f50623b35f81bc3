package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.RangeType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code range_fields}, added to {@code manifest.json} within format version 1: written only when a
 * key is range-indexed, at the top level (which every v1 reader reads with unknown keys ignored).
 */
class ManifestRangeFieldsTest {
  static Manifest manifest() {
    return new Manifest(Manifest.FORMAT_VERSION, "20261204T050000Z-abcdef", "2026-12-04T05:00:00Z", null,
        new Manifest.ModelInfo("m", 4, "mean", true, 128), new Manifest.ChunkerInfo("recursive", 200, 32, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(), List.of());
  }

  @Test
  void rangeFieldsRoundTripAndAreAbsentWhenThereAreNone() throws Exception {
    JsonNode without = SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(manifest()));
    assertFalse(without.has("range_fields"));
    assertTrue(manifest().rangeTypes().isEmpty());
    assertFalse(SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(manifest().withRangeFields(
        Map.of()))).has("range_fields"));

    Manifest with = manifest().withRangeFields(Map.of("version", "long", "modified", "date"));
    byte[] bytes = SnapshotStore.json().writeValueAsBytes(with);
    assertEquals("{\"modified\":\"date\",\"version\":\"long\"}",
        SnapshotStore.json().readTree(bytes).get("range_fields").toString());
    Manifest read = SnapshotStore.json().readValue(bytes, Manifest.class);
    assertEquals(Map.of("version", RangeType.LONG, "modified", RangeType.DATE), read.rangeTypes());
    assertEquals(read.rangeFields(), read.withChangelog(null).rangeFields(), "other edits keep them");
  }

  @Test
  void aTypeThisReaderDoesNotKnowIsNotRangeIndexedForIt() throws Exception {
    Manifest future = manifest().withRangeFields(Map.of("ip", "inet", "version", "long"));
    Manifest read = SnapshotStore.json().readValue(SnapshotStore.json().writeValueAsBytes(future), Manifest.class);
    assertEquals(Map.of("version", RangeType.LONG), read.rangeTypes());
  }
}
