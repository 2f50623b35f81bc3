package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.CorpusFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental builds that leave unchanged corpus files unread ({@code incremental-files: stat}, the
 * default), end to end over a corpus of several files:
 * <ul>
 *   <li>{@code a.jsonl}: unchanged, clean: not read, its documents kept from the base;
 *   <li>{@code b.jsonl}: one record rewritten in place: read;
 *   <li>{@code c.jsonl}: unchanged but with a malformed line: read again, so the line is quarantined again;
 *   <li>{@code z.jsonl}: unchanged, repeats the id {@code x1} of {@code a.jsonl}, so the base quarantined
 *       it as a duplicate; once {@code a.jsonl} drops {@code x1} in the third corpus, z's record must win;
 *   <li>{@code e.jsonl} added, {@code d.md} removed.
 * </ul>
 * Every incremental snapshot must hold exactly what a full build of the same corpus holds.
 */
class UnchangedFilesITCase {
  @TempDir static Path work;
  static Path corpus;
  static Path root;
  static Manifest first;
  static Manifest second;
  static String secondOutput;
  static long hourAgo;

  @BeforeAll
  static void buildThenChangeSomeFilesThenBuildAgain() throws Exception {
    corpus = Files.createDirectories(work.resolve("corpus"));
    root = work.resolve("snapshots");
    hourAgo = System.currentTimeMillis() - 3_600_000;
    write("a.jsonl", docs("a", 8), List.of(line("x1", "The first x1 record, from file a, about kestrels.")));
    write("b.jsonl", docs("b", 8), List.of());
    write("c.jsonl", docs("c", 5), List.of("{\"_id\": \"broken\", \"text\": "));
    write("z.jsonl", List.of(line("x1", "The second x1 record, from file z, about ospreys and their nests.")), List.of());
    Files.writeString(corpus.resolve("d.md"), "# Notes on d\n\nA markdown file about glaciers and moraines.\n");
    stamp("d.md", 0);
    first = build(root, c -> {}, new ByteArrayOutputStream());

    List<String> b = docs("b", 8);
    b.set(3, line("b03", "Rewritten: document b03 now covers the migration of eels to the Sargasso Sea."));
    write("b.jsonl", b, List.of());
    stamp("b.jsonl", 60_000);
    write("e.jsonl", docs("e", 3), List.of());
    Files.delete(corpus.resolve("d.md"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(root, c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void anUnchangedCleanFileIsNotReadAndItsDocumentsAreKept() throws Exception {
    Map<String, Long> c = second.counters();
    assertTrue(secondOutput.contains("1 of 5 corpus files unchanged since CURRENT " + first.id()), secondOutput);
    assertEquals(9, c.get(JobCounters.RECORDS_UNREAD), "a.jsonl's nine records: " + c);
    assertEquals(8 + 6 + 1 + 3, c.get(JobCounters.RECORDS_READ), "b, c (with its bad line), z and e: " + c);
    // c's malformed line again, and z's x1, which loses to the kept x1 of a as it did in the base.
    assertEquals(Map.of("malformed_json", 1L, "duplicate_id", 1L), second.quarantine().byReason());
    assertEquals(1, c.get(JobCounters.INCREMENTAL_REMOVED), "d.md: " + c);
    assertEquals(1, second.corpusFiles().kept());
    assertEquals(5, second.corpusFiles().files());
    Map<String, Boolean> kept = listing(root, second);
    assertEquals(Map.of("a.jsonl", true, "b.jsonl", false, "c.jsonl", false, "e.jsonl", false, "z.jsonl", false), kept);
  }

  @Test
  void theSnapshotHoldsExactlyWhatAFullBuildOfTheSameCorpusHolds() throws Exception {
    Manifest full = build(work.resolve("full-2"), c -> c.incremental = "off", new ByteArrayOutputStream());
    assertEquals(IncrementalBuildITCase.contents(work.resolve("full-2"), full),
        IncrementalBuildITCase.contents(root, second));
    assertEquals(List.of(), new SnapshotStore(root).verify(second), "corpus-files.tsv is listed and verifies");
  }

  @Test
  void aDuplicateThatLostInTheBaseWinsOnceTheWinnerLeavesAnUnchangedFile() throws Exception {
    Path again = work.resolve("dup");
    IncrementalBuildITCase.copyTree(root, again);
    Path saved = work.resolve("a.saved");
    Files.copy(corpus.resolve("a.jsonl"), saved);
    try {
      write("a.jsonl", docs("a", 8), List.of());
      stamp("a.jsonl", 120_000);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Manifest third = build(again, c -> {}, out);
      Manifest full = build(work.resolve("full-dup"), c -> c.incremental = "off", new ByteArrayOutputStream());
      Map<String, String> inc = IncrementalBuildITCase.contents(again, third);
      assertEquals(IncrementalBuildITCase.contents(work.resolve("full-dup"), full), inc);
      assertTrue(inc.get("x1#0").contains("ospreys"), "z's x1 now wins: " + inc.get("x1#0"));
      // b and e were read cleanly by the second build: now they stay unread too; c and z were dirty.
      assertEquals(Map.of("a.jsonl", false, "b.jsonl", true, "c.jsonl", false, "e.jsonl", true, "z.jsonl", false),
          listing(again, third), out.toString(StandardCharsets.UTF_8));
    } finally {
      Files.copy(saved, corpus.resolve("a.jsonl"), StandardCopyOption.REPLACE_EXISTING);
      stamp("a.jsonl", 0);
    }
  }

  @Test
  void aTouchedFileIsReadAndFoundUnchangedAndReadModeReadsEverything() throws Exception {
    Path touched = work.resolve("touched");
    IncrementalBuildITCase.copyTree(root, touched);
    stamp("e.jsonl", 180_000);
    Manifest third;
    try {
      third = build(touched, c -> {}, new ByteArrayOutputStream());
    } finally {
      stamp("e.jsonl", 0);
    }
    // e's three records and c's five good ones are read and found unchanged; a and b stay unread.
    assertEquals(3 + 5, third.counters().get(JobCounters.INCREMENTAL_UNCHANGED), third.counters().toString());
    assertEquals(9 + 8, third.counters().get(JobCounters.RECORDS_UNREAD), third.counters().toString());
    assertEquals(IncrementalBuildITCase.contents(root, second), IncrementalBuildITCase.contents(touched, third));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest read = build(touched, c -> c.incrementalFiles = "read", out);
    assertEquals(0, read.counters().get(JobCounters.RECORDS_UNREAD), out.toString(StandardCharsets.UTF_8));
    assertEquals(0, read.corpusFiles().kept());
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("incremental-files: read"));
    assertEquals(IncrementalBuildITCase.contents(root, second), IncrementalBuildITCase.contents(touched, read));
  }

  @Test
  void aTamperedBaseListingOrOtherSettingsMeanEveryFileIsRead() throws Exception {
    Path tampered = work.resolve("tampered");
    IncrementalBuildITCase.copyTree(root, tampered);
    Path tsv = new SnapshotStore(tampered).layout().snapshotDir(second.id()).resolve(SnapshotLayout.CORPUS_FILES);
    // Claim c.jsonl was kept under a stamp it never had: the manifest's checksum gives it away.
    Files.writeString(tsv, Files.readString(tsv).replace("\tread\t", "\tkept\t"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest third = build(tampered, c -> {}, out);
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("does not match its manifest"), text);
    assertEquals(0, third.counters().get(JobCounters.RECORDS_UNREAD));
    assertEquals(IncrementalBuildITCase.contents(root, second), IncrementalBuildITCase.contents(tampered, third));

    Path other = work.resolve("other-settings");
    IncrementalBuildITCase.copyTree(root, other);
    ByteArrayOutputStream out2 = new ByteArrayOutputStream();
    Manifest fourth = build(other, c -> c.ingest.maxRecordBytes = 1 << 20, out2);
    assertTrue(out2.toString(StandardCharsets.UTF_8).contains("under other settings"), out2.toString(StandardCharsets.UTF_8));
    assertEquals(0, fourth.counters().get(JobCounters.RECORDS_UNREAD));
  }

  /** File name → kept, from a snapshot's corpus-files.tsv. */
  private static Map<String, Boolean> listing(Path snapshots, Manifest m) throws Exception {
    Path tsv = new SnapshotStore(snapshots).layout().snapshotDir(m.id()).resolve(SnapshotLayout.CORPUS_FILES);
    Map<String, Boolean> out = new TreeMap<>();
    try (InputStream in = Files.newInputStream(tsv)) {
      for (CorpusFiles.Entry e : CorpusFiles.read(in).byUri().values()) {
        out.put(e.uri().substring(e.uri().lastIndexOf('/') + 1), e.kept());
      }
    }
    return out;
  }

  static List<String> docs(String prefix, int n) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = String.format("%s%02d", prefix, i);
      lines.add(line(id, "Document " + id + " of file " + prefix + " mentions the word marker" + id + " once."));
    }
    return lines;
  }

  static String line(String id, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"Title of " + id + "\", \"text\": \"" + text + "\"}";
  }

  /** Writes a corpus file, dated an hour ago: well outside the listing's racy window. */
  static void write(String name, List<String> lines, List<String> more) throws Exception {
    List<String> all = new ArrayList<>(lines);
    all.addAll(more);
    Files.write(corpus.resolve(name), all);
    stamp(name, 0);
  }

  /** Sets a corpus file's modification time to an hour ago plus {@code later} milliseconds. */
  static void stamp(String name, long later) throws Exception {
    Files.setLastModifiedTime(corpus.resolve(name), FileTime.fromMillis(hourAgo + later));
  }

  static Manifest build(Path snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), snapshots.toString(), c -> {
      c.ingest.maxBadFraction = 0.5;
      tweak.accept(c);
    }, out);
  }

}
