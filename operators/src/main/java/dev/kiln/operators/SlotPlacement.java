package dev.kiln.operators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which GPU an embed slot takes: the GPU indexes Flink's external resource framework gave its
 * TaskManager, and a claim on one of them that no other live embed slot of the TaskManager holds.
 *
 * <p>Flink tells a task neither its TaskManager nor its slot number ({@code TaskInfo} has the global
 * subtask index and an allocation id only), so each embed subtask claims a GPU itself: the first GPU
 * (in the TaskManager's index order) that no live embed subtask of this TaskManager JVM holds, of any job;
 * when every GPU has a holder, a second "seat" on the GPUs in the same order, and so on, so that slots
 * beyond the GPUs spread evenly. The claim is given back when the subtask closes, also after a failure
 * or a cancellation, and a restarted subtask claims again.
 *
 * <p>Why a file lock. The claim must be seen by every job on the TaskManager, but each job's Kiln classes
 * come from the job's own class loader, so a static registry would be one per job (two builds at once
 * each took GPU 0). The JDK keeps one table of file locks per JVM, below every class loader:
 * {@link FileChannel#tryLock} throws {@link OverlappingFileLockException} for a region that any channel of
 * this JVM holds (documented behaviour, not an accident of the implementation). That needs no setup in
 * Flink's {@code lib/} or its class loading patterns, and no shared mutable System property. The
 * operating system's lock on the file is not relied on: POSIX drops all of a process's locks on a file
 * when any descriptor of it is closed, so the file is this JVM's own (its pid in the name) and another
 * process never looks at it. One region per (GPU index, seat). A TaskManager that exits releases all;
 * one killed leaves an empty file in {@code java.io.tmpdir}.
 *
 * <p>In a mini-cluster, where all TaskManagers share a JVM, the claims run across TaskManagers (still
 * one slot per GPU while there are enough).
 */
public final class SlotPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(SlotPlacement.class);
  /** Flink's name for the GPU resource ({@code external-resources: gpu}) and its driver's property. */
  public static final String GPU_RESOURCE = "gpu";
  public static final String INDEX_PROPERTY = "index";
  /** Slots per GPU that are told apart; beyond it a slot shares the last seat's GPU without a claim. */
  static final int MAX_SEATS = 1024;

  private SlotPlacement() {}

  /**
   * One embed slot's GPU. {@code localSlot} numbers the claims seat by seat ({@code seat * gpus +
   * position}), so that {@code gpus.get(localSlot % gpus.size())} is the claimed GPU.
   */
  public static final class Claim implements AutoCloseable {
    /** No GPU to claim (a CPU host, {@code embed.device: cpu} or a fixed {@code gpu:N}). */
    public static final Claim NONE = new Claim(-1, -1, 0, null);

    private final int gpu;
    private final int seat;
    private final int localSlot;
    private FileLock lock;

    private Claim(int gpu, int seat, int localSlot, FileLock lock) {
      this.gpu = gpu;
      this.seat = seat;
      this.localSlot = localSlot;
      this.lock = lock;
    }

    /** The claimed GPU index, or -1 for none. */
    public int gpu() {
      return gpu;
    }

    /** How many live slots held this GPU before this one (0: the slot has the GPU to itself); -1 for none. */
    public int seat() {
      return seat;
    }

    /** The slot's local index for {@code DeviceSelector}: {@code seat * gpus + position of the GPU}. */
    public int localSlot() {
      return localSlot;
    }

    public boolean isHeld() {
      return lock != null && lock.isValid();
    }

    /** Gives the GPU back; idempotent. */
    @Override
    public synchronized void close() {
      if (lock == null) {
        return;
      }
      try {
        lock.channel().close(); // releases the lock too
      } catch (IOException e) {
        LOG.warn("cannot release the claim on GPU {} seat {}: {}", gpu, seat, e.toString());
      }
      lock = null;
    }

    @Override
    public String toString() {
      return gpu < 0 ? "no GPU claim" : "GPU " + gpu + " seat " + seat;
    }
  }

  /** {@link #claim(Path, List)} in this TaskManager JVM's claim file under {@code java.io.tmpdir}. */
  public static Claim claim(List<Integer> gpus) {
    return claim(Path.of(System.getProperty("java.io.tmpdir")), gpus);
  }

  /**
   * Claims the first free seat on {@code gpus}, seat 0 of every GPU first; {@link Claim#NONE} for no GPUs.
   *
   * @param dir where this JVM's claim file lives
   */
  public static Claim claim(Path dir, List<Integer> gpus) {
    if (gpus.isEmpty()) {
      return Claim.NONE;
    }
    Path file = dir.resolve("kiln-gpu-claims-" + ProcessHandle.current().pid() + ".lock");
    try {
      Files.createDirectories(dir);
      if (Files.notExists(file)) {
        try {
          file.toFile().deleteOnExit(); // the JVM's own: nothing else will ever read it
        } catch (IllegalStateException shuttingDown) {
          // the JVM is exiting: the file stays behind, empty
        }
      }
      for (int seat = 0; seat < MAX_SEATS; seat++) {
        for (int p = 0; p < gpus.size(); p++) {
          FileLock lock = tryLock(file, region(gpus.get(p), seat));
          if (lock != null) {
            return new Claim(gpus.get(p), seat, seat * gpus.size() + p, lock);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot claim a GPU in " + file, e);
    }
    LOG.warn("{} embed slots on GPUs {} of this TaskManager: this one shares GPU {} unclaimed", MAX_SEATS * gpus.size(),
        gpus, gpus.get(0));
    return new Claim(gpus.get(0), MAX_SEATS, 0, null);
  }

  /** The lock region of one (GPU, seat): one byte, GPU-major so every index has its own range. */
  private static long region(int gpu, int seat) {
    return (long) gpu * MAX_SEATS + seat;
  }

  private static FileLock tryLock(Path file, long region) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock(region, 1, false);
      if (lock != null) {
        return lock;
      }
    } catch (OverlappingFileLockException heldInThisJvm) {
      // another slot of this TaskManager holds this seat
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    channel.close();
    return null;
  }

  /**
   * The GPU indexes among {@code infos} (from {@code getExternalResourceInfos("gpu")}), ascending; an
   * entry without a numeric {@code index} property is skipped with a warning.
   */
  public static List<Integer> gpuIndexes(Collection<ExternalResourceInfo> infos) {
    List<Integer> out = new ArrayList<>();
    for (ExternalResourceInfo info : infos) {
      Optional<String> index = info.getProperty(INDEX_PROPERTY);
      try {
        out.add(Integer.parseInt(index.orElseThrow().trim()));
      } catch (RuntimeException e) {
        LOG.warn("ignoring external resource '{}' without a numeric '{}' property (keys {})",
            GPU_RESOURCE, INDEX_PROPERTY, info.getKeys());
      }
    }
    out.sort(null);
    return List.copyOf(out);
  }
}
