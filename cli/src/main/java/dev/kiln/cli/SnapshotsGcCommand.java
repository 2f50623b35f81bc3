package dev.kiln.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.publish.SnapshotRetention;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln snapshots gc}: removes expired snapshots and the data of dead builds. */
@Command(name = "gc", mixinStandardHelpOptions = true,
    description = "Remove old snapshots and the data of dead builds; never the published snapshot nor the one"
        + " before it.")
final class SnapshotsGcCommand extends SnapshotsRoot implements Callable<Integer> {
  static final int DEFAULT_STALE_HOURS = 24;

  @Option(names = "--keep", paramLabel = "N", required = true, description = "newest complete snapshots to keep")
  int keep;

  @Option(names = "--stale-hours", paramLabel = "H", defaultValue = "" + DEFAULT_STALE_HOURS,
      description = "unfinished data whose build marker shows no heartbeat for H hours (may be fractional) counts"
          + " as dead (default: ${DEFAULT-VALUE}); a running build beats every minute")
  double staleHours;

  @Option(names = "--dry-run", description = "print what would be removed")
  boolean dryRun;

  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long staleMillis = staleMillis(keep, staleHours);
    SnapshotRetention gc = new SnapshotRetention(store());
    SnapshotRetention.Plan plan = gc.plan(keep, staleMillis);
    SnapshotRetention.Outcome done = dryRun ? null : gc.run(plan, staleMillis);
    if (json) {
      ObjectNode root = JSON.valueToTree(plan);
      root.put("dry_run", dryRun);
      root.set("removed", JSON.valueToTree(done == null ? List.of() : done.removed()));
      if (done != null) {
        root.set("retired_now", JSON.valueToTree(done.retired()));
        root.set("deferred", JSON.valueToTree(done.deferred()));
        root.put("problem", done.problem());
      }
      out().println(JSON.writeValueAsString(root));
    } else {
      out().println("kept:     " + plan.kept() + (plan.continued().isEmpty() ? ""
          : " (" + plan.continued() + " continued by running builds)"));
      out().println("expired:  " + plan.expired());
      out().println("orphaned: " + plan.orphans() + " (unfinished data of builds that are no longer running)");
      out().println("retired:  " + plan.retired() + " (removed earlier; files later snapshots referenced)");
      out().println("building: " + plan.building() + " (left alone)");
      if (done == null) {
        out().println("dry run: nothing removed");
      } else {
        out().println("removed:  " + done.removed());
        if (!done.retired().isEmpty()) {
          out().println("retired:  " + done.retired() + " still hold files that other snapshots reference");
        }
        if (!done.deferred().isEmpty()) {
          out().println("deferred: " + done.deferred() + ": their data stays for a later gc: " + done.problem());
        }
      }
    }
    return Kiln.OK;
  }
}
