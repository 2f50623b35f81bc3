package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStorageContract;
import dev.kiln.testing.S3Server;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The storage contract on {@link S3SnapshotStorage} against a real S3 server (s3proxy) on 127.0.0.1. */
class S3SnapshotStorageContractITCase extends SnapshotStorageContract {
  private static final String BUCKET = "contract";
  @TempDir static Path work;
  private static S3Server server;

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /**
   * s3proxy's filesystem blob store checks {@code If-None-Match}/{@code If-Match} and then writes, so
   * two truly simultaneous PUTs can both pass (seen here: three winners of four); S3 itself decides
   * them atomically. The sequential conditional-PUT contract runs here, the server's header handling
   * is pinned by {@code S3SnapshotStorageITCase.theServerHonoursConditionalPutHeaders}, and a race
   * between read and write by {@code aWriterThatChangesTheObjectBetweenReadAndWriteWinsTheRace}.
   */
  @Override
  protected boolean storeDecidesConcurrentWritesAtomically() {
    return false;
  }

  @Override
  protected SnapshotStorage open(String rootName) {
    return S3SnapshotStorage.open("s3://" + BUCKET + "/" + rootName, S3Settings.of(server.settings(), Map.of()));
  }
}
