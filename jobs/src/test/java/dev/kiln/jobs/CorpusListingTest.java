package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.CorpusFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's corpus listing: the source's URIs and sizes, and no trust in a time the listing shares. */
class CorpusListingTest {
  @TempDir Path corpus;

  @Test
  void aFileWrittenJustBeforeTheListingGetsNoTrustedTimeAndAnOlderOneKeepsItsOwn() throws Exception {
    Files.writeString(corpus.resolve("old.jsonl"), "{\"_id\": \"a\", \"text\": \"old\"}\n");
    long hourAgo = System.currentTimeMillis() - 3_600_000;
    Files.setLastModifiedTime(corpus.resolve("old.jsonl"), FileTime.fromMillis(hourAgo));
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    // A first listing loads the source's classes: in a cold JVM on a busy machine that alone can outlast the
    // racy window, and the file below would then be older than it by the time the listing reads the clock.
    assertEquals(1, CorpusListing.list(config).size());
    Files.createDirectories(corpus.resolve("sub"));
    Files.writeString(corpus.resolve("sub/new.md"), "# Fresh\n\nJust written.\n");

    Map<String, CorpusFiles.Entry> byName = new TreeMap<>();
    for (CorpusFiles.Entry e : CorpusListing.list(config)) {
      byName.put(e.uri().substring(e.uri().lastIndexOf('/') + 1), e);
      assertFalse(e.kept(), "a plain listing keeps nothing");
    }
    assertEquals(2, byName.size(), byName.toString());
    assertEquals(hourAgo / 1000, byName.get("old.jsonl").modified() / 1000, "its own time, to the second");
    assertEquals(Files.size(corpus.resolve("old.jsonl")), byName.get("old.jsonl").size());
    assertEquals(0, byName.get("new.md").modified(), "written within the racy window: never trusted");
    assertEquals("file:" + corpus.resolve("sub/new.md").toAbsolutePath(),
        byName.get("new.md").uri(), "the URI the readers give their records");
  }
}
