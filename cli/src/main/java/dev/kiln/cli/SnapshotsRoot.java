package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.ConfigException;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Options and helpers every {@code kiln snapshots} subcommand shares. */
abstract class SnapshotsRoot {
  static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--snapshots", paramLabel = "URI", defaultValue = "kiln-data/snapshots",
      description = "snapshots root: a directory or s3://BUCKET/PREFIX (default: ${DEFAULT-VALUE})")
  String snapshots;

  /** File system settings of a remote root: the config's {@code filesystem:} section, then {@code --fs}. */
  @CommandLine.Mixin FileSystemOptions fs = new FileSystemOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private SnapshotStore store;

  SnapshotStore store() {
    if (store == null) {
      store = SnapshotRoots.store(snapshots, fs.settings());
    }
    return store;
  }

  /** The root as the user named it, for messages (a remote root's layout is its local mirror). */
  String where() {
    return snapshots;
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Why {@code id} cannot be shown: it does not exist, is unfinished, or gc removed it but kept referenced files. */
  SnapshotException noManifest(SnapshotStore store, String id) {
    Optional<StagingMarker> marker = store.stagingMarker(id);
    if (marker.isPresent() && StagingMarker.RETIRED.equals(marker.get().state())) {
      return new SnapshotException("snapshot " + id + " under " + where() + " was removed by 'kiln snapshots gc' ("
          + marker.get().started() + "): its directory keeps only files that later snapshots reference, and the"
          + " next gc after none does removes them (see 'kiln snapshots du')");
    }
    return new SnapshotException("snapshot " + id + " has no manifest under " + where()
        + ": it does not exist, or it is unfinished (see 'kiln snapshots list')");
  }

  /** Checks gc's {@code --keep} and {@code --stale-hours} (du takes them as gc does); the stale age in ms. */
  static long staleMillis(int keep, double staleHours) {
    if (keep < 0) {
      throw new ConfigException("--keep must be >= 0, was " + keep);
    }
    long staleMillis = (long) (staleHours * 3_600_000L);
    if (!(staleHours > 0) || staleMillis < 1000) {
      throw new ConfigException("--stale-hours must be at least one second (0.0003), was " + staleHours);
    }
    return staleMillis;
  }

  static String checkId(String id, String what) {
    if (!SnapshotLayout.isSnapshotId(id)) {
      throw new ConfigException(what + " must be a snapshot id like 20261202T131755Z-3fa9c1, was '" + id + "'");
    }
    return id;
  }
}
