package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.ConfigException;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.publish.SnapshotUsage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln snapshots list|show|verify|publish|rollback|gc|du}: inspect and move between snapshots. */
@Command(name = "snapshots", mixinStandardHelpOptions = true,
    description = "List, verify, publish, roll back and garbage-collect snapshots, and show what they occupy.",
    subcommands = {SnapshotsCommand.ListCmd.class, SnapshotsCommand.ShowCmd.class, SnapshotsCommand.VerifyCmd.class, SnapshotsCommand.PublishCmd.class,
        SnapshotsCommand.RollbackCmd.class, SnapshotsCommand.GcCmd.class, SnapshotsCommand.DuCmd.class})
final class SnapshotsCommand implements Runnable {
  private static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing subcommand: list, show ID, verify [ID], publish ID, rollback [ID], gc --keep N or du");
  }

  /** Options every subcommand shares. */
  static class Root {
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

    static String checkId(String id, String what) {
      if (!SnapshotLayout.isSnapshotId(id)) {
        throw new ConfigException(what + " must be a snapshot id like 20261202T131755Z-3fa9c1, was '" + id + "'");
      }
      return id;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Snapshots, oldest first: complete ones, and unfinished data of running or dead builds.")
  static final class ListCmd extends Root implements Callable<Integer> {
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
          boolean dead = marker.isEmpty() || marker.get().abandoned(now, GcCmd.DEFAULT_STALE_HOURS * 3_600_000L,
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

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Show a snapshot's manifest summary and verify every file (exit 1 if it does not verify).")
  static final class ShowCmd extends Root implements Callable<Integer> {
    @Parameters(paramLabel = "ID", arity = "0..1", description = "snapshot id (default: the published one)")
    String id;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      SnapshotStore store = store();
      String sid = id == null ? store.currentId() : checkId(id, "ID");
      if (!store.hasManifest(sid)) {
        throw noManifest(store, sid);
      }
      Manifest m = store.manifest(sid);
      List<String> problems = store.verify(m);
      if (json) {
        ObjectNode root = JSON.valueToTree(m);
        root.put("published", sid.equals(store.current().orElse(null)));
        root.put("verified", problems.isEmpty());
        // Per shard too, so a caller sees which shard failed its size or sha256 check.
        root.path("shards").forEach(shard -> ((ObjectNode) shard).put("verified",
            problems.stream().noneMatch(p -> p.startsWith(shard.path("directory").asText() + "/"))));
        ArrayNode p = root.putArray("problems");
        problems.forEach(p::add);
        out().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
      } else {
        out().printf(Locale.ROOT, "snapshot %s%s%n", sid, sid.equals(store.current().orElse(null)) ? " (published)" : "");
        out().printf(Locale.ROOT, "  created %s, parent %s%n", m.created(), m.parent() == null ? "-" : m.parent());
        out().printf(Locale.ROOT, "  model %s (%d-d), chunker %s %d/%d%n", m.model().name(), m.model().dimension(),
            m.chunker().strategy(), m.chunker().size(), m.chunker().overlap());
        for (Manifest.ShardEntry s : m.shards()) {
          long bytes = s.files().stream().mapToLong(Manifest.FileEntry::size).sum();
          out().printf(Locale.ROOT, "  %s: %d chunks, %d documents, %d files, %d bytes%n", s.directory(), s.chunks(),
              s.documents(), s.files().size(), bytes);
        }
        if (m.docstore() != null) {
          out().printf(Locale.ROOT, "  %s: %d parents (%s), %d files%n", m.docstore().directory(),
              m.docstore().parents(), m.docstore().format(), m.docstore().files().size());
        }
        if (m.corpusFiles() != null) {
          out().printf(Locale.ROOT, "  %s: %d files (%d kept from the base, not read), %d bytes%n",
              m.corpusFiles().file(), m.corpusFiles().files(), m.corpusFiles().kept(), m.corpusFiles().bytes());
        }
        out().println(problems.isEmpty() ? "  verified: every file matches its size and sha256" : "  NOT VERIFIED");
      }
      if (!problems.isEmpty()) {
        throw new SnapshotException("snapshot " + sid + " failed verification and must not be used: "
            + String.join("; ", problems));
      }
      return Kiln.OK;
    }
  }

  @Command(name = "verify", mixinStandardHelpOptions = true,
      description = "Re-read every byte of a snapshot against its manifest (exit 1 on any mismatch) and record the"
          + " result in its VERIFIED record, which searchers rely on to skip hashing at open.")
  static final class VerifyCmd extends Root implements Callable<Integer> {
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

  @Command(name = "publish", mixinStandardHelpOptions = true,
      description = "Verify a complete snapshot and point CURRENT at it.")
  static final class PublishCmd extends Root implements Callable<Integer> {
    @Parameters(paramLabel = "ID")
    String id;

    @Option(names = "--force", description = "publish a snapshot whose build failed a gate (recall floor, verifier);"
        + " every file is still verified against the manifest")
    boolean force;

    @Override
    public Integer call() {
      SnapshotStore store = store();
      String before = store.current().orElse(null);
      new SnapshotPublisher(store).publish(checkId(id, "ID"), before, false, force);
      out().println("published " + id + " (was " + (before == null ? "nothing" : before) + ")");
      return Kiln.OK;
    }
  }

  @Command(name = "rollback", mixinStandardHelpOptions = true,
      description = "Point CURRENT back at the snapshot before it (its parent), or at ID.")
  static final class RollbackCmd extends Root implements Callable<Integer> {
    @Parameters(paramLabel = "ID", arity = "0..1")
    String id;

    @Override
    public Integer call() {
      SnapshotStore store = store();
      String before = store.currentId();
      String now = new SnapshotPublisher(store).rollback(id == null ? null : checkId(id, "ID"));
      out().println("rolled back to " + now + " (was " + before + ")");
      return Kiln.OK;
    }
  }

  @Command(name = "gc", mixinStandardHelpOptions = true,
      description = "Remove old snapshots and the data of dead builds; never the published snapshot nor the one"
          + " before it.")
  static final class GcCmd extends Root implements Callable<Integer> {
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
      if (keep < 0) {
        throw new ConfigException("--keep must be >= 0, was " + keep);
      }
      long staleMillis = (long) (staleHours * 3_600_000L);
      if (!(staleHours > 0) || staleMillis < 1000) {
        throw new ConfigException("--stale-hours must be at least one second (0.0003), was " + staleHours);
      }
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

  @Command(name = "du", mixinStandardHelpOptions = true,
      description = "Bytes each complete snapshot needs, holds, references from earlier snapshots and alone holds"
          + " (what removing only it would free); the root's stored bytes; what 'gc --keep N' would free.")
  static final class DuCmd extends Root implements Callable<Integer> {
    /** What {@code du} assumes for {@code gc --keep} (gc itself has no default): the deployment's ({@code deploy/rebuild.sh}). */
    static final int DEFAULT_KEEP = 3;

    @Option(names = "--keep", paramLabel = "N", defaultValue = "" + DEFAULT_KEEP,
        description = "count what 'gc --keep N' would free (default: ${DEFAULT-VALUE}, as deploy/rebuild.sh runs gc)")
    int keep;

    @Option(names = "--stale-hours", paramLabel = "H", defaultValue = "" + GcCmd.DEFAULT_STALE_HOURS,
        description = "as gc's: unfinished data without a heartbeat for H hours counts as dead (default: ${DEFAULT-VALUE})")
    double staleHours;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      if (keep < 0) {
        throw new ConfigException("--keep must be >= 0, was " + keep);
      }
      long staleMillis = (long) (staleHours * 3_600_000L);
      if (!(staleHours > 0) || staleMillis < 1000) {
        throw new ConfigException("--stale-hours must be at least one second (0.0003), was " + staleHours);
      }
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
}
