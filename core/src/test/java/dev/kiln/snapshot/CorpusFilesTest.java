package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code corpus-files.tsv}, format version 1: round trips, escaping, and every malformed file refused by line. */
class CorpusFilesTest {
  private static final String SETTINGS = "ingest=4f2a9c01 chunker=945de111d9ebf5a3";

  private static CorpusFiles.Entry read(String uri, long size, long modified) {
    return new CorpusFiles.Entry(uri, size, modified, false);
  }

  private static CorpusFiles.Entry kept(String uri, long size, long modified) {
    return new CorpusFiles.Entry(uri, size, modified, true);
  }

  private static byte[] write(String settings, List<CorpusFiles.Entry> entries) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CorpusFiles.write(out, settings, entries);
    return out.toByteArray();
  }

  private static CorpusFiles parse(String text) throws IOException {
    return CorpusFiles.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** The message of the IOException reading {@code text} fails with; it must name {@code line}. */
  private static String refused(String text, int line) {
    IOException e = assertThrows(IOException.class, () -> parse(text), text);
    assertTrue(e.getMessage().contains("line " + line + ":"), e.getMessage());
    return e.getMessage();
  }

  @Test
  void roundTripsHostileUrisSortedAndCountsWhatItWrote() throws IOException {
    List<CorpusFiles.Entry> entries = List.of(
        read("file:/data/corpus/z.jsonl", 10, 1_700_000_000_123L),
        kept("file:/data/corpus/a b.md", 0, 0),
        read("file:/data/corpus/tab\there", 7, -5),
        kept("file:/data/corpus/line\nbreak\r\nand cr\r", 3, 42),
        read("file:/data/corpus/100%.txt", 1, 1),
        read("file:/data/corpus/%09 literally and %2509 and %0a %0", 2, 2),
        kept("s3://bucket/日本語/ファイル.parquet", Long.MAX_VALUE / 4, Long.MAX_VALUE),
        read("file:/data/corpus/emoji-\uD83D\uDE00.txt", 5, 5));
    byte[] bytes = write(SETTINGS, entries);
    String text = new String(bytes, StandardCharsets.UTF_8);
    assertTrue(text.startsWith("# kiln corpus-files 1\n# settings " + SETTINGS + "\n"), text);
    assertTrue(text.endsWith("\n"));
    // Rows never break: header, settings line, one line per entry.
    assertEquals(2 + entries.size(), text.split("\n", -1).length - 1, text);
    assertFalse(text.contains("\r"));
    assertTrue(text.contains("\tread\tfile:/data/corpus/%2509 literally and %252509 and %250a %250\n"), text);
    assertTrue(text.contains("3\t42\tkept\tfile:/data/corpus/line%0Abreak%0D%0Aand cr%0D\n"), text);

    CorpusFiles back = CorpusFiles.read(new ByteArrayInputStream(bytes));
    assertEquals(SETTINGS, back.settings());
    assertEquals(entries.size(), back.size());
    for (CorpusFiles.Entry e : entries) {
      assertEquals(e, back.get(e.uri()), e.uri());
    }
    List<String> sorted = entries.stream().map(CorpusFiles.Entry::uri).sorted().toList();
    assertEquals(sorted, List.copyOf(back.byUri().keySet()));
    List<String> rowOrder = new ArrayList<>();
    text.lines().skip(2).forEach(l -> rowOrder.add(CorpusFiles.decode(l.split("\t", -1)[3])));
    assertEquals(sorted, rowOrder, "rows are written in uri order");
    assertEquals(3, back.keptCount());
    assertEquals(Set.of("file:/data/corpus/a b.md", "file:/data/corpus/line\nbreak\r\nand cr\r",
        "s3://bucket/日本語/ファイル.parquet"), back.keptUris());
    assertEquals(entries.stream().mapToLong(CorpusFiles.Entry::size).sum(), back.bytes());
    assertNull(back.get("file:/data/corpus/missing"));
    assertTrue(back.get("file:/data/corpus/z.jsonl").sameStamp(10, 1_700_000_000_123L));
    assertFalse(back.get("file:/data/corpus/z.jsonl").sameStamp(10, 1_700_000_000_124L));
    assertFalse(back.get("file:/data/corpus/z.jsonl").sameStamp(11, 1_700_000_000_123L));
  }

  @Test
  void writeReturnsTheManifestSectionOfTheBytesItWrote() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest.CorpusFilesEntry e = CorpusFiles.write(out, "", List.of(read("file:/b", 5, 1), kept("file:/a", 7, 2)));
    assertEquals(new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 2, 1, 12, out.size(),
        Checksums.sha256(out.toByteArray())), e);
    assertEquals("", CorpusFiles.read(new ByteArrayInputStream(out.toByteArray())).settings());
    Manifest.CorpusFilesEntry empty = CorpusFiles.write(new ByteArrayOutputStream(), SETTINGS, List.of());
    assertEquals(0, empty.files());
    assertEquals(0, CorpusFiles.read(new ByteArrayInputStream(write(SETTINGS, List.of()))).size());
  }

  @Test
  void encodingRoundTripsEveryString() {
    for (String s : List.of("", "%", "%%", "%25", "%2509", "%09", "%0A", "%0a", "%0D", "a%", "a%2", "%%0A",
        "\t\n\r", "%\t%\n", "%252525", "\uD800 lone surrogate")) {
      assertEquals(s, CorpusFiles.decode(CorpusFiles.encode(s)), s);
      assertFalse(CorpusFiles.encode(s).matches("(?s).*[\t\n\r].*"), s);
    }
    Random random = new Random(20261204L);
    String alphabet = "%0925ADad\t\n\r x/\u00e9\uD83D\uDE00";
    for (int i = 0; i < 10_000; i++) {
      StringBuilder b = new StringBuilder();
      for (int n = random.nextInt(12); n > 0; n--) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      assertEquals(b.toString(), CorpusFiles.decode(CorpusFiles.encode(b.toString())), b.toString());
    }
    assertEquals("%41 %0a %2", CorpusFiles.decode("%41 %0a %2"), "other %xx stay literal");
  }

  @Test
  void writeRefusesWhatTheReaderCouldNotTakeBack() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> write(SETTINGS,
        List.of(read("file:/a", 1, 1), kept("file:/a", 1, 1)))).getMessage().contains("listed twice"));
    for (String settings : List.of("a\nb", "a\tb", "a\r")) {
      assertThrows(IllegalArgumentException.class, () -> write(settings, List.of()), settings);
    }
    assertThrows(IllegalArgumentException.class, () -> write(SETTINGS, List.of(read("file:/\uD800", 1, 1))));
    assertThrows(IllegalArgumentException.class,
        () -> write(SETTINGS, List.of(read("file:/" + "x".repeat(CorpusFiles.MAX_LINE_BYTES), 1, 1))));
    assertThrows(IllegalArgumentException.class, () -> read("", 1, 1));
    assertThrows(IllegalArgumentException.class, () -> read("file:/a", -1, 1));
  }

  @Test
  void aMalformedListingIsRefusedNamingTheLine() {
    String head = "# kiln corpus-files 1\n# settings s\n";
    assertTrue(refused("", 1).contains("empty file"));
    assertTrue(refused("# kiln corpus-files\n# settings s\n", 1).contains("not a kiln corpus files listing"));
    assertTrue(refused("# kiln corpus files 1\n", 1).contains("not a kiln corpus files listing"));
    assertTrue(refused("1\t1\tread\tfile:/a\n", 1).contains("not a kiln corpus files listing"));
    String future = refused("# kiln corpus-files 2\n# settings s\n", 1);
    assertTrue(future.contains("version '2'") && future.contains("knows version 1"), future);
    assertTrue(refused("# kiln corpus-files 1\n", 2).contains("no settings line"));
    assertTrue(refused("# kiln corpus-files 1\n1\t1\tread\tfile:/a\n", 2).contains("a row before the settings line"));
    assertTrue(refused("# kiln corpus-files 1\n# setting s\n", 2).contains("expected '# settings"));
    assertTrue(refused(head + "1\t1\tread\n", 3).contains("3 columns, expected 4"));
    assertTrue(refused(head + "1\t1\tread\tfile:/a\tx\n", 3).contains("5 columns"));
    assertTrue(refused(head + "\n", 3).contains("1 columns"));
    assertTrue(refused(head + "1\t1\tread\tfile:/a\nx\t1\tread\tfile:/b\n", 4).contains("size 'x' is not a whole number"));
    assertTrue(refused(head + "1\t1.5\tread\tfile:/a\n", 3).contains("modified '1.5' is not a whole number"));
    assertTrue(refused(head + "99999999999999999999\t1\tread\tfile:/a\n", 3).contains("not a whole number"));
    assertTrue(refused(head + "-1\t1\tread\tfile:/a\n", 3).contains("negative size -1"));
    assertTrue(refused(head + "1\t1\tskipped\tfile:/a\n", 3).contains("state 'skipped', expected read or kept"));
    assertTrue(refused(head + "1\t1\tread\t\n", 3).contains("empty uri"));
    String twice = refused(head + "1\t1\tread\tfile:/%25\n2\t2\tkept\tfile:/%\n", 4);
    assertTrue(twice.contains("listed twice: file:/%"), twice);
    assertTrue(refused(head + "1\t1\tread\tfile:/a", 3).contains("no line end"));
    assertTrue(refused(head + "1\t1\tread\tfile:/a\r\n", 3).contains("carriage return"));
    assertTrue(refused("# kiln corpus-files 1\r\n# settings s\r\n", 1).contains("carriage return"));
    assertTrue(refused(head + "1\t1\tread\tfile:/" + "x".repeat(CorpusFiles.MAX_LINE_BYTES) + "\n", 3)
        .contains("longer than"));
  }

  @Test
  void bytesThatAreNotUtf8AreRefusedNamingTheLine() {
    byte[] head = "# kiln corpus-files 1\n# settings s\n1\t1\tread\tfile:/".getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[head.length + 2];
    System.arraycopy(head, 0, bytes, 0, head.length);
    bytes[head.length] = (byte) 0xff;
    bytes[head.length + 1] = '\n';
    IOException e = assertThrows(IOException.class, () -> CorpusFiles.read(new ByteArrayInputStream(bytes)));
    assertTrue(e.getMessage().contains("line 3: not UTF-8"), e.getMessage());
  }

  /** {@code golden/format-v1/corpus-files.tsv}: hand-written, never regenerated to make this pass. */
  @Test
  void readsTheGoldenListingAndWritesItBackByteForByte() throws IOException {
    byte[] bytes;
    try (InputStream in = CorpusFilesTest.class.getResourceAsStream("/golden/format-v1/corpus-files.tsv")) {
      assertNotNull(in, "missing golden file corpus-files.tsv");
      bytes = in.readAllBytes();
    }
    CorpusFiles golden = CorpusFiles.read(new ByteArrayInputStream(bytes));
    assertEquals("sha256:4c1f0e6a9d2b7c35 chunker=945de111d9ebf5a3 ingest=json,text", golden.settings());
    assertEquals(4, golden.size());
    assertEquals(2, golden.keptCount());
    assertEquals(1834 + 0 + 120_409 + 77, golden.bytes());
    assertEquals(new CorpusFiles.Entry("file:/data/corpus/docs.jsonl.gz", 1834, 1764763200123L, false),
        golden.get("file:/data/corpus/docs.jsonl.gz"));
    assertEquals(new CorpusFiles.Entry("file:/data/corpus/empty.txt", 0, 0, true),
        golden.get("file:/data/corpus/empty.txt"));
    assertEquals(new CorpusFiles.Entry("file:/data/corpus/notes\tQ3 100%.md", 77, 1764676800000L, true),
        golden.get("file:/data/corpus/notes\tQ3 100%.md"));
    assertEquals(new CorpusFiles.Entry("s3://bucket/parquet/part-0.parquet", 120_409, 1764590400999L, false),
        golden.get("s3://bucket/parquet/part-0.parquet"));
    assertEquals(Set.of("file:/data/corpus/empty.txt", "file:/data/corpus/notes\tQ3 100%.md"), golden.keptUris());
    // Given in reverse order: the writer sorts.
    List<CorpusFiles.Entry> reversed = new ArrayList<>(golden.byUri().values());
    Collections.reverse(reversed);
    assertEquals(new String(bytes, StandardCharsets.UTF_8),
        new String(write(golden.settings(), reversed), StandardCharsets.UTF_8), "the v1 writer changed");
  }
}
