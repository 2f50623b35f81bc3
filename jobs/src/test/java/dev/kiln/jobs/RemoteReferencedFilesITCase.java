package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44 on a real S3-compatible server (s3proxy on 127.0.0.1): an incremental build references its
 * base's unchanged segment objects, whose SHA-256 it copies rather than computes, so its publish hashes
 * each referenced object unless the owner's {@code VERIFIED} record holds the ETag and Last-Modified the
 * bucket reports now. Untouched, nothing is hashed; one referenced segment object replaced with other
 * bytes of the same size fails the next build's publish, naming the file, and {@code CURRENT} stays.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteReferencedFilesITCase {
  static final String BUCKET = "kiln";
  static final String ROOT = "s3://" + BUCKET + "/snapshots";
  private static final Pattern HASHED = Pattern.compile("referenced files hashed at publish\\s*\\|?\\s*(\\d+) of (\\d+)"
      + " \\((\\d+) bytes\\)");

  @TempDir static Path work;
  static S3Server server;
  static Map<String, String> s3;
  static Path corpus;
  static Manifest first;
  static Manifest second;
  static String secondOutput;

  @BeforeAll
  static void buildThenBuildIncrementallyOverTheUntouchedBucket() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    s3 = server.settings();
    corpus = work.resolve("corpus.jsonl");
    List<String> lines = IncrementalBuildITCase.firstCorpus();
    Files.write(corpus, lines);
    first = build(c -> {}, new ByteArrayOutputStream());
    Files.write(corpus, IncrementalBuildITCase.changedCorpus(lines));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static Manifest build(Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), ROOT, c -> {
      c.filesystem.putAll(s3);
      tweak.accept(c);
    }, out);
  }

  static SnapshotMirror mirror(Path local) {
    return new SnapshotMirror(RemoteStorages.open(ROOT, s3), ROOT, local);
  }

  @Test
  @Order(1)
  void overAnUntouchedBucketThePublishHashesNoReferencedFile() throws Exception {
    assertTrue(secondOutput.contains("+ incremental: yes, over CURRENT " + first.id()), secondOutput);
    Matcher m = HASHED.matcher(secondOutput);
    assertTrue(m.find(), secondOutput);
    long referenced = second.shards().stream().flatMap(s -> s.files().stream()).filter(f -> f.snapshot() != null)
        .count();
    assertTrue(referenced > 0, "the rebuild references its base's unchanged segments");
    assertEquals(0, Long.parseLong(m.group(1)), m.group());
    assertTrue(Long.parseLong(m.group(2)) >= referenced, m.group());
    assertEquals(0, Long.parseLong(m.group(3)), m.group());

    // Each record holds the token the bucket gave for every file it checked, referenced ones too.
    SnapshotStore store = RemoteStorages.store(ROOT, s3);
    VerifiedRecord record = store.verifiedRecord(second.id()).orElseThrow();
    assertEquals("build", record.by());
    for (Manifest.ShardEntry s : second.shards()) {
      for (Manifest.FileEntry f : s.files()) {
        String token = record.versions().get(s.directory() + "/" + f.name());
        assertTrue(token != null && token.startsWith("etag="), f + ": " + token);
        assertEquals(store.storage().stat(SnapshotLayout.fileKey(second.id(), s.directory(), f)).version(), token);
      }
    }
  }

  @Test
  @Order(2)
  void aReferencedSegmentReplacedWithOtherBytesOfTheSameSizeFailsThePublishNamingIt() throws Exception {
    // The largest file the second snapshot references from the first, in the shard the next change
    // leaves alone: no writer reads it, so only the publish can see what happened to it.
    Manifest.ShardEntry shard = second.shards().stream()
        .filter(s -> s.files().stream().anyMatch(f -> first.id().equals(f.snapshot()))).findFirst().orElseThrow();
    Manifest.FileEntry shared = shard.files().stream().filter(f -> first.id().equals(f.snapshot()))
        .max(Comparator.comparingLong(Manifest.FileEntry::size)).orElseThrow();
    String name = shard.directory() + "/" + shared.name();
    String key = "snapshots/" + SnapshotLayout.fileKey(second.id(), shard.directory(), shared);
    byte[] good = server.bytes(key);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 0x01;
    server.put(key, bad);
    try {
      List<String> lines = new ArrayList<>(Files.readAllLines(corpus));
      String added = null;
      for (int i = 90; i < 99 && added == null; i++) {
        String id = "d" + i;
        if (ShardRouter.shardOf(id, 2) != shard.shard()) {
          added = id;
        }
      }
      lines.add(IncrementalBuildITCase.line(added, "One more document, about lighthouse keepers."));
      Files.write(corpus, lines);

      Exception e = assertThrows(Exception.class, () -> build(c -> c.restartAttempts = 0,
          new ByteArrayOutputStream()));
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      assertTrue(trace.toString().contains("failed verification and will not be published")
          && trace.toString().contains(name + ": sha256 "), trace.toString());
      assertEquals(second.id(), mirror(work.resolve("after")).remoteCurrent(), "CURRENT did not move");

      // ... and a download of the published snapshot refuses it too, naming it.
      SnapshotException refused = assertThrows(SnapshotException.class,
          () -> mirror(work.resolve("refused")).localizeForServing(second.id()));
      assertTrue(refused.getMessage().contains(name), refused.getMessage());
    } finally {
      server.put(key, good);
    }
    // Put back (a new Last-Modified, so another token): the next build hashes it once and publishes.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest third = build(c -> {}, out);
    Matcher m = HASHED.matcher(out.toString(StandardCharsets.UTF_8));
    assertTrue(m.find(), out.toString(StandardCharsets.UTF_8));
    assertTrue(Long.parseLong(m.group(1)) >= 1, m.group());
    assertEquals(second.id(), third.parent());
    assertTrue(Files.isDirectory(mirror(work.resolve("third")).localizeForServing(third.id())), "it downloads whole");
  }
}
