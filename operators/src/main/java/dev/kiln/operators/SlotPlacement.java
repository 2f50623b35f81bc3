package dev.kiln.operators;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an embed slot needs to pick its GPU: the GPU indexes Flink's external resource framework gave
 * its TaskManager, and the slot's local index on that TaskManager.
 *
 * <p>Flink tells a task neither its TaskManager nor its slot number ({@code TaskInfo} has the global
 * subtask index and an allocation id only), so the local index is approximated: each embed subtask
 * claims the lowest index no other live embed subtask of this job holds in this JVM, and frees it on
 * close (a restarted subtask takes it back). On a cluster a TaskManager is one JVM and the job's classes
 * are loaded once per job there, so this is exactly "the n-th embed slot of this job on this TaskManager".
 * Two Kiln jobs running on one TaskManager at once each count from 0; in a mini-cluster, where all
 * TaskManagers share a JVM, the indexes run across TaskManagers (still one per slot).
 */
public final class SlotPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(SlotPlacement.class);
  /** Flink's name for the GPU resource ({@code external-resources: gpu}) and its driver's property. */
  public static final String GPU_RESOURCE = "gpu";
  public static final String INDEX_PROPERTY = "index";

  private static final BitSet CLAIMED = new BitSet();

  private SlotPlacement() {}

  /** Claims the lowest free local slot index; give it back with {@link #release}. */
  public static int claim() {
    synchronized (CLAIMED) {
      int i = CLAIMED.nextClearBit(0);
      CLAIMED.set(i);
      return i;
    }
  }

  public static void release(int localSlot) {
    if (localSlot < 0) {
      return;
    }
    synchronized (CLAIMED) {
      CLAIMED.clear(localSlot);
    }
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
