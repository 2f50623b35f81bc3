package dev.kiln.jobs;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for tests that keeps every counter it is shown, by identifier, after the
 * mini-cluster has shut down (Flink's in-memory reporter forgets them when it is closed).
 */
public final class CapturingReporter implements MetricReporter {
  static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();
  static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();
  static final Map<String, Meter> METERS = new ConcurrentHashMap<>();

  static Configuration configure(Configuration conf) {
    conf.setString("metrics.reporter.kiln_capture.factory.class", Factory.class.getName());
    return conf;
  }

  @Override
  public void open(MetricConfig config) {}

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    if (metric instanceof Counter c) {
      COUNTERS.put(group.getMetricIdentifier(name), c);
    } else if (metric instanceof Gauge<?> g) {
      GAUGES.put(group.getMetricIdentifier(name), g);
    } else if (metric instanceof Meter m) {
      METERS.put(group.getMetricIdentifier(name), m);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new CapturingReporter();
    }
  }
}
