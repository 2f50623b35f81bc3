package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@code source_uri} is shown over HTTP: relative to its corpus root, never the build machine's path. */
class SourceUrisTest {
  @Test
  void underAConfiguredRootTheUriIsRelativeToItBehindItsLabel() {
    SourceUris s = SourceUris.parse(List.of("/home/builder/corpora/acme=acme", "file:///home/builder/corpora/acme/"
        + "archive=old", "s3://corpora/globex/", "file:/data/single.jsonl"));
    assertEquals("acme/guides/install.md", s.show("file:/home/builder/corpora/acme/guides/install.md"));
    assertEquals("old/2019/a.jsonl", s.show("file:/home/builder/corpora/acme/archive/2019/a.jsonl"),
        "the innermost root wins");
    assertEquals("acme/x.md", s.show("file:///home/builder/corpora/acme/x.md"), "file:/// is file:/");
    assertEquals("tickets/t.parquet", s.show("s3://corpora/globex/tickets/t.parquet"), "no label: the relative path");
    assertEquals("single.jsonl", s.show("file:/data/single.jsonl"), "a root that is a file: its name");
    assertEquals("acme-other.md", s.show("file:/home/builder/corpora/acme-other.md"), "a sibling is not under it");
  }

  @Test
  void withoutARootALocalUriIsItsFileNameAndAnyOtherAsIndexed() {
    SourceUris none = SourceUris.none();
    assertEquals("install.md", none.show("file:/home/builder/corpora/acme/guides/install.md"));
    assertEquals("s3://corpora/acme/remote.jsonl", none.show("s3://corpora/acme/remote.jsonl"));
    assertEquals("hdfs://nn:8020/c/a.jsonl", none.show("hdfs://nn:8020/c/a.jsonl"));
  }

  @Test
  void aRelativeRootIsTakenFromTheWorkingDirectoryAsTheBuildTakesIt() {
    String cwd = Path.of("").toAbsolutePath().toString();
    assertEquals("docs/a/b.md", SourceUris.parse(List.of("docs=docs")).show("file:" + cwd + "/docs/a/b.md"));
  }

  @Test
  void aBadLabelOrAMissingUriIsRefusedNamingTheSpec() {
    IllegalArgumentException label = assertThrows(IllegalArgumentException.class,
        () -> SourceUris.parse(List.of("/data/c=a/b")));
    assertTrue(label.getMessage().contains("'/data/c=a/b'") && label.getMessage().contains("label"), label.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> SourceUris.parse(List.of("=acme")));
    assertTrue(empty.getMessage().contains("'=acme'"), empty.getMessage());
  }
}
