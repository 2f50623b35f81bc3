package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * Reads a bundled sample manifest and {@code VERIFIED} record once, so that a process about to open a
 * snapshot can pay the JSON binding's first use on another thread while it does something else (a
 * command line being parsed). That first use binds each record type's constructor through method
 * handles the JVM generates on the spot: about a tenth of a second in a fresh JVM, for a 9 KB manifest
 * that then parses in a millisecond (issue 47.4). The sample is the format-2 golden manifest, so every
 * section a real one has is bound.
 */
public final class ManifestWarmUp {
  static final String SAMPLE = "warm-up-manifest.json";

  private ManifestWarmUp() {}

  /**
   * Parses the samples. Returns whether both parsed: false means only that the warm-up did less (a
   * sample out of date), never that a snapshot is unreadable, so callers ignore it.
   */
  public static boolean run() {
    try (InputStream in = ManifestWarmUp.class.getResourceAsStream(SAMPLE)) {
      if (in == null) {
        return false;
      }
      byte[] bytes = in.readAllBytes();
      Manifest m = SnapshotStore.JSON.readValue(bytes, Manifest.class);
      ManifestCheck.validate(m);
      VerifiedRecord record = new VerifiedRecord(VerifiedRecord.FORMAT_VERSION, Checksums.sha256(bytes),
          m.created(), "publish", 1, 1, Map.of("shard-00000/_0.cfs", new FileIdentity(1, 1, "(dev=1,ino=1)")), null);
      VerifiedRecord back = SnapshotStore.JSON.readValue(SnapshotStore.JSON.writeValueAsBytes(record),
          VerifiedRecord.class);
      return back.equals(record);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
