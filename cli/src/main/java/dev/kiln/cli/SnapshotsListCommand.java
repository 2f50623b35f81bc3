package dev.kiln.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln snapshots list}: every snapshot and unfinished build under the root, with its state. */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "Snapshots, oldest first: complete ones, and unfinished data of running or dead builds.")
final class SnapshotsListCommand extends SnapshotsRoot implements Callable<Integer> {
  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Override
  public Integer call() throws Exception {
    SnapshotStore store = store();
    String current = store.current().orElse(null);
    ArrayNode rows = JSON.createArrayNode();
    long now = System.currentTimeMillis();
    for (String id : store.allIds()) {
      ObjectNode row = rows.addObject();
      row.put("id", id);
      if (store.hasManifest(id)) {
        Manifest m;
        try {
          m = store.manifest(id);
        } catch (SnapshotException e) {
          row.put("state", "invalid");
          row.put("problem", e.getMessage());
          continue;
        }
        row.put("state", id.equals(current) ? "published" : store.held(id).isPresent() ? "held" : "complete");
        row.put("created", m.created());
        row.put("parent", m.parent());
        row.put("chunks", m.totalChunks());
        row.put("shards", m.shards().size());
        row.put("model", m.model().name());
      } else {
        Optional<StagingMarker> marker = store.stagingMarker(id);
        boolean retired = marker.isPresent() && StagingMarker.RETIRED.equals(marker.get().state());
        boolean dead = marker.isEmpty() || marker.get().abandoned(now, SnapshotsGcCommand.DEFAULT_STALE_HOURS * 3_600_000L,
            store.storage().lastModified(SnapshotLayout.stagingKey(id)));
        // retired: removed by gc, its directory keeping only files later snapshots reference.
        row.put("state", retired ? "retired" : dead ? "orphaned" : "building");
        marker.ifPresent(mk -> row.put(retired ? "retired" : "created", mk.started()));
      }
    }
    if (json) {
      ObjectNode root = JSON.createObjectNode();
      root.put("current", current);
      root.set("snapshots", rows);
      out().println(JSON.writeValueAsString(root));
    } else {
      out().printf(Locale.ROOT, "%-24s %-10s %-24s %8s %6s  %s%n", "ID", "STATE", "CREATED", "CHUNKS", "SHARDS", "MODEL");
      rows.forEach(r -> out().printf(Locale.ROOT, "%-24s %-10s %-24s %8s %6s  %s%n", r.get("id").asText(),
          r.get("state").asText(), r.path("created").asText(r.path("retired").asText("")), r.path("chunks").asText(""),
          r.path("shards").asText(""), r.path("model").asText("")));
      if (rows.isEmpty()) {
        out().println("(no snapshots under " + where() + ")");
      }
    }
    return Kiln.OK;
  }
}
