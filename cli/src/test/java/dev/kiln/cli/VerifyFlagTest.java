package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.Tampering;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln search} over a snapshot whose shard file had a byte flipped after it was verified: the
 * default check ({@code --verify record}) hashes a file whose identity changed and refuses it by name;
 * {@code --verify full} hashes every file and so also finds a flip that kept the inode and the time.
 */
class VerifyFlagTest {
  @TempDir Path root;
  private Path victim;
  private String name;

  @BeforeEach
  void verifiedSnapshot() throws Exception {
    String id = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    SnapshotLayout layout = new SnapshotLayout(root);
    Tampering.backdate(layout.snapshotDir(id), Duration.ofMinutes(10));
    assertEquals(List.of(), new SnapshotStore(root).verifyAndRecord(id, "publish"));
    victim = Tampering.segmentFile(layout.shardDir(id, 0));
    name = "shard-00000/" + victim.getFileName();
    Run ok = run("search", "--snapshots", root.toString(), "--mode", "bm25", "volcano");
    assertEquals(Kiln.OK, ok.code(), ok.err());
  }

  @Test
  void searchRefusesAShardFileChangedSinceVerificationNamingIt() throws Exception {
    Tampering.flipInPlace(victim);
    Run run = run("search", "--snapshots", root.toString(), "--mode", "bm25", "volcano");
    assertEquals(Kiln.FAILURE, run.code(), run.out() + run.err());
    assertTrue(run.err().contains(name + ": sha256"), run.err());
  }

  @Test
  void verifyFullFindsAFlipThatKeptTheInodeAndTheTime() throws Exception {
    Tampering.flipInPlaceKeepingTime(victim);
    // Nothing but the bytes tell: the record's check takes the file on its word, as documented.
    Run record = run("search", "--snapshots", root.toString(), "--mode", "bm25", "volcano");
    assertEquals(Kiln.OK, record.code(), record.err());
    Run full = run("search", "--snapshots", root.toString(), "--mode", "bm25", "--verify", "full", "volcano");
    assertEquals(Kiln.FAILURE, full.code(), full.out() + full.err());
    assertTrue(full.err().contains(name + ": sha256"), full.err());
  }

  @Test
  void anUnknownVerifyModeIsAUsageErrorNamingTheFlag() {
    for (String command : List.of("search", "eval", "serve")) {
      List<String> args = new ArrayList<>(List.of(command, "--snapshots", root.toString(), "--verify",
          "some"));
      if (command.equals("eval")) {
        args.addAll(List.of("--queries", "q.jsonl", "--qrels", "q.tsv"));
      }
      if (command.equals("search")) {
        args.add("volcano");
      }
      Run run = run(args.toArray(String[]::new));
      assertEquals(Kiln.USAGE, run.code(), args + ": " + run.err());
      assertTrue(run.err().contains("unknown --verify 'some': valid values are record, full"), args + ": " + run.err());
    }
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      return new Run(Kiln.execute(args), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }
}
