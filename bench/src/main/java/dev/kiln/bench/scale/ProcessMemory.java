package dev.kiln.bench.scale;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Peak memory of this JVM: heap in use, sampled every 20 ms by a daemon thread (what the run held,
 * garbage included, under G1 at the given maximum: an upper bound), the largest heap left live after
 * a collection (the sum over heap pools of their usage after the last GC: the figure to size
 * {@code -Xmx} by, with headroom), and the
 * resident set's high-water mark from {@code /proc/self/status} ({@code VmHWM}: heap, metaspace,
 * direct buffers, native model memory and the page cache of memory-mapped files that were touched).
 */
final class ProcessMemory implements AutoCloseable {
  private final MemoryMXBean bean = ManagementFactory.getMemoryMXBean();
  private final Thread sampler;
  private volatile boolean running = true;
  private volatile long peakHeap;
  private volatile long peakLive;

  ProcessMemory() {
    sampler = new Thread(() -> {
      while (running) {
        sample();
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sample() {
    long used = bean.getHeapMemoryUsage().getUsed();
    if (used > peakHeap) {
      peakHeap = used;
    }
    long live = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage after = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
      live += after == null ? 0 : after.getUsed();
    }
    if (live > peakLive) {
      peakLive = live;
    }
  }

  long peakHeapBytes() {
    sample();
    return peakHeap;
  }

  /** {@code VmHWM} in bytes, or -1 where {@code /proc} is missing. */
  static long residentHighWaterBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("peak_heap_mb", peakHeapBytes() / 1e6);
    m.put("peak_live_heap_after_gc_mb", peakLive / 1e6);
    m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / 1e6);
    m.put("peak_rss_mb", residentHighWaterBytes() / 1e6);
    // The step's CPU time so far (every thread, JIT and GC included): with the wall, how busy it kept the
    // machine's cores — an alternated pair's two sides are compared on both (issue 47.1).
    m.put("process_cpu_s", ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(-1.0));
    return m;
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
  }
}
