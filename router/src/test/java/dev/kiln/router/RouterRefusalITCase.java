package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.ShardedCorpus;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router refuses at start-up, with a message naming the replica and what to fix: replicas of
 * another snapshots root, of a snapshot embedded with another model, groups whose shards overlap or leave one out, a server that is not a
 * shard group, a group whose pipeline it cannot split, and a group with no replica answering.
 */
class RouterRefusalITCase {
  @TempDir
  Path rootA;
  @TempDir
  Path rootB;
  @TempDir
  Path otherModel;

  @Test
  void badTopologiesAreRefusedAtStartUp() throws Exception {
    ShardedCorpus.write(rootA, 200, 4, 1);
    ShardedCorpus.write(rootB, 200, 4, 2);
    ShardedCorpus.write(otherModel, 200, 4, 3, "sha256:another-model");
    try (Cluster cluster = new Cluster()) {
      Cluster.Server a01 = cluster.serve(rootA, "0-1", 0);
      Cluster.Server a23 = cluster.serve(rootA, "2-3", 0);
      Cluster.Server a12 = cluster.serve(rootA, "1-2", 0);
      Cluster.Server b23 = cluster.serve(rootB, "2-3", 0);
      Cluster.Server m23 = cluster.serve(otherModel, "2-3", 0);
      Cluster.Server whole = cluster.serve(rootA, null, 0);
      Cluster.Server rewriting = cluster.serve(rootA, "2-3", 0, Cluster.DEFAULTS.withPrf(true));

      refused(List.of(List.of(a01.uri()), List.of(b23.uri())), "serves snapshots root");
      refused(List.of(List.of(a01.uri()), List.of(m23.uri())), "of model sha256:another-model");
      refused(List.of(List.of(a01.uri()), List.of(m23.uri())), "one router, one model");
      refused(List.of(List.of(a01.uri()), List.of(a12.uri())), "served by two groups");
      refused(List.of(List.of(a01.uri())), "no group serves shard 2");
      refused(List.of(List.of(a01.uri(), a12.uri()), List.of(a23.uri())), "same shards");
      refused(List.of(List.of(whole.uri())), "start group servers with --shards");
      // --prf's RM3 is served (the router runs it), but every group must search with the same options.
      refused(List.of(List.of(a01.uri()), List.of(rewriting.uri())), "start every group with the same search options");
      Cluster.Server gone = cluster.serve(rootA, "2-3", 0);
      gone.close();
      refused(List.of(List.of(a01.uri()), List.of(gone.uri())), "no replica of group 1");
    }
  }

  private static void refused(List<List<URI>> groups, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RouterServer.start(RouterConfig.of(groups).withDeadlineMs(2000)).close());
    assertTrue(e.getMessage().contains(message), "expected '" + message + "' in: " + e.getMessage());
  }
}
