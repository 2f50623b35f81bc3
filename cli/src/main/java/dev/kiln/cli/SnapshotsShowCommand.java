package dev.kiln.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln snapshots show}: a snapshot's manifest summary, every file verified. */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Show a snapshot's manifest summary and verify every file (exit 1 if it does not verify).")
final class SnapshotsShowCommand extends SnapshotsRoot implements Callable<Integer> {
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
