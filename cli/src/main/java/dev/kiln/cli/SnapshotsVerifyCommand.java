package dev.kiln.cli;

import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kiln snapshots verify}: re-reads a snapshot and records the result in its {@code VERIFIED} record. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Re-read every byte of a snapshot against its manifest (exit 1 on any mismatch) and record the"
        + " result in its VERIFIED record, which searchers rely on to skip hashing at open.")
final class SnapshotsVerifyCommand extends SnapshotsRoot implements Callable<Integer> {
  @Parameters(paramLabel = "ID", arity = "0..1", description = "snapshot id (default: the published one)")
  String id;

  @Override
  public Integer call() {
    SnapshotStore store = store();
    String sid = id == null ? store.currentId() : checkId(id, "ID");
    if (!store.hasManifest(sid)) {
      throw noManifest(store, sid);
    }
    long t0 = System.nanoTime();
    List<String> problems = store.verifyAndRecord(sid, "verify");
    if (!problems.isEmpty()) {
      problems.forEach(p -> out().println("  " + p));
      throw new SnapshotException("snapshot " + sid + " failed verification (" + problems.size()
          + " problem(s)); its VERIFIED record was removed, so searchers hash it at open and refuse it");
    }
    store.verifiedRecord(sid).ifPresent(r -> out().printf(Locale.ROOT,
        "snapshot %s verified: %d files, %d bytes match the manifest (%.1f s); recorded in VERIFIED%n", sid,
        r.files(), r.bytes(), (System.nanoTime() - t0) / 1e9));
    return Kiln.OK;
  }
}
