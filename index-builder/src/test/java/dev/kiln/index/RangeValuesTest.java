package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.RangeType;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How range-indexed metadata values are read, and that the shard writer indexes them as points. */
class RangeValuesTest {
  @TempDir Path tmp;

  @Test
  void longsTakeIntegersOnly() {
    assertEquals(3L, RangeValues.parse(RangeType.LONG, "3"));
    assertEquals(-12L, RangeValues.parse(RangeType.LONG, " -12 "));
    assertEquals(3L, RangeValues.parse(RangeType.LONG, "3.00"));
    assertEquals(1000L, RangeValues.parse(RangeType.LONG, "1e3"));
    assertEquals(Long.MAX_VALUE, RangeValues.parse(RangeType.LONG, "9223372036854775807"));
    for (String bad : new String[] {"3.5", "9223372036854775808", "v3", "", "0x10", "3L", "NaN", "1 000"}) {
      assertNull(RangeValues.parse(RangeType.LONG, bad), bad);
    }
  }

  @Test
  void doublesTakeDecimalsButNoSpecialValues() {
    assertEquals(2.5, RangeValues.parse(RangeType.DOUBLE, "2.5"));
    assertEquals(-0.25, RangeValues.parse(RangeType.DOUBLE, "-.25"));
    assertEquals(7.0, RangeValues.parse(RangeType.DOUBLE, "7"));
    for (String bad : new String[] {"NaN", "Infinity", "-Infinity", "1e400", "0x1p3", "2.5d", "two"}) {
      assertNull(RangeValues.parse(RangeType.DOUBLE, bad), bad);
    }
  }

  @Test
  void datesTakeIsoDatesAndDateTimesAsEpochMillisUtc() {
    assertEquals(1767225600000L, RangeValues.parse(RangeType.DATE, "2026-01-01"));
    assertEquals(1767261600000L, RangeValues.parse(RangeType.DATE, "2026-01-01T10:00:00Z"));
    assertEquals(1767261600123L, RangeValues.parse(RangeType.DATE, "2026-01-01T10:00:00.123Z"));
    assertEquals(1767254400000L, RangeValues.parse(RangeType.DATE, "2026-01-01T10:00:00+02:00"));
    assertEquals(1767261600000L, RangeValues.parse(RangeType.DATE, "2026-01-01T10:00"), "no zone: UTC");
    assertEquals(1767261600000L, RangeValues.parse(RangeType.DATE, "2026-01-01 10:00:00"), "a space for the T");
    assertEquals(1767261600000L, RangeValues.parse(RangeType.DATE, "2026-01-01T11:00:00+01:00[Europe/Paris]"));
    for (String bad : new String[] {"2026-13-01", "2026-02-30", "01/02/2026", "1767225600000", "yesterday", "2026"}) {
      assertNull(RangeValues.parse(RangeType.DATE, bad), bad);
    }
  }

  @Test
  void theShardWriterIndexesParsedValuesAsPointsAndCountsTheRest() throws Exception {
    IndexConfig config = new IndexConfig();
    config.rangeFields = new LinkedHashMap<>(Map.of("version", "long", "score", "double",
        "modified", "date"));
    Path shard = tmp.resolve("shard");
    long rejected;
    try (ShardIndexWriter writer = new ShardIndexWriter(shard, config, 2)) {
      writer.add(chunk("a", Map.of("version", "3", "score", "0.5", "modified", "2026-01-01", "tenant", "x")));
      writer.add(chunk("b", Map.of("version", "v4", "score", "high", "modified", "2026-02-01T00:00:00Z")));
      writer.add(chunk("c", Map.of("tenant", "y")));
      rejected = writer.rangeValuesRejected();
    }
    assertEquals(2, rejected, "v4 and high");
    try (FSDirectory dir = FSDirectory.open(shard); DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher s = new IndexSearcher(reader);
      assertEquals(1, s.count(LongPoint.newRangeQuery(ShardSchema.RANGE_PREFIX + "version", 0, 10)));
      assertEquals(1, s.count(DoublePoint.newRangeQuery(ShardSchema.RANGE_PREFIX + "score", 0.5, 0.5)));
      assertEquals(2, s.count(LongPoint.newRangeQuery(ShardSchema.RANGE_PREFIX + "modified",
          1767225600000L, 1769904000000L)));
      assertEquals(0, s.count(LongPoint.newRangeQuery(ShardSchema.RANGE_PREFIX + "tenant", Long.MIN_VALUE,
          Long.MAX_VALUE)), "keys not listed get no points");
    }
  }

  private static EmbeddedChunk chunk(String doc, Map<String, String> meta) {
    return new EmbeddedChunk(new Chunk(doc + "#0", doc, 0, "", "text of " + doc, 0, 5, 2, meta),
        new float[] {0.6f, 0.8f});
  }
}
