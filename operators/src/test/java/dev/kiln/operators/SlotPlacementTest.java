package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlotPlacementTest {
  /** The shape of what Flink's GPU driver reports: one info per GPU with an {@code index} property. */
  private record Info(Map<String, String> properties) implements ExternalResourceInfo {
    @Override
    public Optional<String> getProperty(String key) {
      return Optional.ofNullable(properties.get(key));
    }

    @Override
    public Collection<String> getKeys() {
      return properties.keySet();
    }
  }

  @Test
  void gpuIndexesAreReadFromTheIndexPropertySortedAndMalformedOnesSkipped() {
    List<ExternalResourceInfo> infos = List.of(new Info(Map.of("index", "5")), new Info(Map.of("index", " 2")),
        new Info(Map.of("uuid", "GPU-1")), new Info(Map.of("index", "two")));
    assertEquals(List.of(2, 5), SlotPlacement.gpuIndexes(infos));
    assertEquals(List.of(), SlotPlacement.gpuIndexes(List.of()));
  }

  @Test
  void slotsTakeEveryGpuBeforeASecondSeat_andAFreedGpuIsClaimedAgain(@TempDir Path dir) {
    List<Integer> gpus = List.of(3, 5);
    try (SlotPlacement.Claim a = SlotPlacement.claim(dir, gpus); SlotPlacement.Claim b = SlotPlacement.claim(dir, gpus);
        SlotPlacement.Claim c = SlotPlacement.claim(dir, gpus)) {
      assertEquals(List.of(3, 5, 3), List.of(a.gpu(), b.gpu(), c.gpu()));
      assertEquals(List.of(0, 0, 1), List.of(a.seat(), b.seat(), c.seat()));
      // DeviceSelector picks gpus.get(localSlot % gpus.size()): the claimed GPU.
      assertEquals(List.of(0, 1, 2), List.of(a.localSlot(), b.localSlot(), c.localSlot()));
      a.close();
      assertFalse(a.isHeld());
      try (SlotPlacement.Claim again = SlotPlacement.claim(dir, gpus)) {
        assertEquals(3, again.gpu(), "a restarted subtask takes the freed GPU back");
        assertEquals(0, again.seat());
      }
      a.close(); // idempotent
    }
    try (SlotPlacement.Claim afterAll = SlotPlacement.claim(dir, gpus)) {
      assertEquals(3, afterAll.gpu(), "every claim was given back");
      assertEquals(0, afterAll.seat());
    }
    assertSame(SlotPlacement.Claim.NONE, SlotPlacement.claim(dir, List.of()));
  }

  /**
   * Two Kiln jobs on one TaskManager load SlotPlacement in two class loaders (Flink's child-first job
   * class loaders); their claims must still exclude each other. A static of the class did not.
   */
  @Test
  void claimsFromTwoJobClassLoadersExcludeEachOther(@TempDir Path dir) throws Exception {
    List<Integer> gpus = List.of(0, 1);
    try (JobLoader job1 = new JobLoader(); JobLoader job2 = new JobLoader()) {
      Class<?> p1 = job1.loadClass(SlotPlacement.class.getName());
      Class<?> p2 = job2.loadClass(SlotPlacement.class.getName());
      assertNotSame(p1, p2, "each job has its own copy of the class");
      AutoCloseable a = (AutoCloseable) p1.getMethod("claim", Path.class, List.class).invoke(null, dir, gpus);
      AutoCloseable b = (AutoCloseable) p2.getMethod("claim", Path.class, List.class).invoke(null, dir, gpus);
      assertEquals(0, gpu(a));
      assertEquals(1, gpu(b), "the second job's slot takes the other GPU");
      a.close();
      AutoCloseable c = (AutoCloseable) p2.getMethod("claim", Path.class, List.class).invoke(null, dir, gpus);
      assertEquals(0, gpu(c), "a GPU the first job gave back is free for the second");
      b.close();
      c.close();
    }
  }

  private static int gpu(Object claim) throws Exception {
    return (int) claim.getClass().getMethod("gpu").invoke(claim);
  }

  /** Loads SlotPlacement (and its nested classes) itself, everything else from the test's class path. */
  private static final class JobLoader extends ClassLoader implements AutoCloseable {
    JobLoader() {
      super(SlotPlacementTest.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith(SlotPlacement.class.getName())) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            byte[] bytes = in.readAllBytes();
            c = defineClass(name, bytes, 0, bytes.length);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return c;
      }
    }

    @Override
    public void close() {}
  }
}
