package dev.kiln.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.publish.SnapshotUsage;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln snapshots du}: what each snapshot occupies and what gc would free. */
@Command(name = "du", mixinStandardHelpOptions = true,
    description = "Bytes each complete snapshot needs, holds, references from earlier snapshots and alone holds"
        + " (what removing only it would free); the root's stored bytes; what 'gc --keep N' would free.")
final class SnapshotsDuCommand extends SnapshotsRoot implements Callable<Integer> {
  /** What {@code du} assumes for {@code gc --keep} (gc itself has no default): the deployment's ({@code deploy/rebuild.sh}). */
  static final int DEFAULT_KEEP = 3;

  @Option(names = "--keep", paramLabel = "N", defaultValue = "" + DEFAULT_KEEP,
      description = "count what 'gc --keep N' would free (default: ${DEFAULT-VALUE}, as deploy/rebuild.sh runs gc)")
  int keep;

  @Option(names = "--stale-hours", paramLabel = "H", defaultValue = "" + SnapshotsGcCommand.DEFAULT_STALE_HOURS,
      description = "as gc's: unfinished data without a heartbeat for H hours counts as dead (default: ${DEFAULT-VALUE})")
  double staleHours;

  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long staleMillis = staleMillis(keep, staleHours);
    SnapshotUsage.Report r = SnapshotUsage.measure(store(), keep, staleMillis);
    if (json) {
      ObjectNode root = JSON.createObjectNode();
      root.put("current", store().current().orElse(null));
      ArrayNode rows = root.putArray("snapshots");
      for (SnapshotUsage.Snapshot s : r.snapshots()) {
        ObjectNode row = rows.addObject();
        row.put("id", s.id());
        row.put("state", s.state());
        row.put("files", s.files());
        row.put("bytes", s.bytes());
        row.put("own_bytes", s.own());
        row.put("referenced_bytes", s.referenced());
        row.put("record_bytes", s.records());
        row.put("unique_bytes", s.unique());
      }
      ArrayNode other = root.putArray("unfinished");
      r.unfinished().forEach(u -> other.addObject().put("id", u.id()).put("state", u.state()).put("bytes", u.bytes()));
      root.put("stored_bytes", r.stored());
      root.put("listed_bytes", r.listed());
      root.put("record_bytes", r.records());
      root.put("unlisted_bytes", r.unlisted());
      ObjectNode gc = root.putObject("gc");
      gc.put("keep", r.keep());
      gc.set("expired", JSON.valueToTree(r.expired()));
      gc.set("orphans", JSON.valueToTree(r.orphans()));
      gc.put("freed_bytes", r.freed());
      root.set("problems", JSON.valueToTree(r.problems()));
      out().println(JSON.writeValueAsString(root));
      return Kiln.OK;
    }
    out().printf(Locale.ROOT, "%-24s %-10s %6s %14s %14s %14s %14s%n", "ID", "STATE", "FILES", "BYTES", "OWN",
        "REFERENCED", "UNIQUE");
    r.snapshots().forEach(s -> out().printf(Locale.ROOT, "%-24s %-10s %6d %14d %14d %14d %14d%n", s.id(), s.state(),
        s.files(), s.bytes(), s.own(), s.referenced(), s.unique()));
    r.unfinished().forEach(u -> out().printf(Locale.ROOT, "%-24s %-10s %6s %14d%n", u.id(), u.state(), "", u.bytes()));
    out().printf(Locale.ROOT, "stored: %d bytes (%d in files complete snapshots list, each file once; %d in their"
        + " manifests and records; %d in unfinished or retired data)%n", r.stored(), r.listed(), r.records(),
        r.unlisted());
    out().printf(Locale.ROOT, "gc --keep %d would remove %s%s and free %d bytes%n", r.keep(), r.expired(),
        r.orphans().isEmpty() ? "" : " and the unfinished data of " + r.orphans(), r.freed());
    r.problems().forEach(p -> out().println("not counted (unreadable manifest): " + p));
    return Kiln.OK;
  }
}
