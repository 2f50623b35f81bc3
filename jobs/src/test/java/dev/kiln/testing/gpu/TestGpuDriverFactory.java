package dev.kiln.testing.gpu;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.externalresource.ExternalResourceDriver;
import org.apache.flink.api.common.externalresource.ExternalResourceDriverFactory;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test external-resource driver: reports {@code amount} GPUs with the {@code index} property 0, 1, …
 * as Flink's own GPU driver does after its discovery script, on a host with no GPU. Loaded by a
 * TaskManager from a plugin directory ({@link TestGpuPlugin} writes it) named by
 * {@code external-resource.gpu.driver-factory.class}. Ours, not Flink's {@code flink-external-resource-gpu}:
 * that artifact's parent POM is not published, so Maven cannot resolve it.
 */
public final class TestGpuDriverFactory implements ExternalResourceDriverFactory {
  /** What the driver logs once it reported its GPUs, for tests to find in the TaskManager's log. */
  public static final String REPORTED = "test GPU driver reports GPU indexes";

  @Override
  public ExternalResourceDriver createExternalResourceDriver(Configuration config) {
    return new Driver();
  }

  private static final class Driver implements ExternalResourceDriver {
    private static final Logger LOG = LoggerFactory.getLogger(Driver.class);

    @Override
    public Set<? extends ExternalResourceInfo> retrieveResourceInfo(long amount) {
      Set<Gpu> gpus = new LinkedHashSet<>();
      for (long i = 0; i < amount; i++) {
        gpus.add(new Gpu(Long.toString(i)));
      }
      LOG.info("{} {}", REPORTED, gpus.stream().map(Gpu::index).toList());
      return gpus;
    }
  }

  private record Gpu(String index) implements ExternalResourceInfo {
    @Override
    public Optional<String> getProperty(String key) {
      return "index".equals(key) ? Optional.of(index) : Optional.empty();
    }

    @Override
    public Collection<String> getKeys() {
      return List.of("index");
    }
  }
}
