package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Cost against corpus size from several scale runs' {@code result.json}: build seconds, memory and
 * latency, each a log-log PNG (a straight line of slope 1 is linear growth).
 * Arguments: output folder, result files.
 */
public final class ScaleChart {
  static {
    System.setProperty("java.awt.headless", "true");
  }

  private ScaleChart() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    List<JsonNode> runs = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (int i = 1; i < args.length; i++) {
      runs.add(json.readTree(Path.of(args[i]).toFile()));
    }
    runs.sort(Comparator.comparingLong(r -> r.get("chunks").asLong()));
    chart(runs, "Build time against corpus size", "seconds", out.resolve("scale-build.png"),
        new String[] {"Kiln build (wall)", "kiln_build/wall_s"}, new String[] {"raw Lucene IndexWriter", "raw_lucene_build/wall_s"},
        new String[] {"Kiln rebuild, 1 % changed", "rebuild/wall_s"});
    chart(runs, "Peak memory against corpus size", "MB", out.resolve("scale-memory.png"),
        new String[] {"build peak heap", "kiln_build/peak_heap_mb"}, new String[] {"build peak RSS", "kiln_build/peak_rss_mb"},
        new String[] {"raw Lucene peak heap", "raw_lucene_build/peak_heap_mb"},
        new String[] {"searcher peak heap", "search/peak_heap_mb"}, new String[] {"searcher peak RSS", "search/peak_rss_mb"});
    // Steady state, vector given: what the 5 / 20 ms targets are read from (the interleaved series charges
    // each mode for the caches and JIT state the others left).
    chart(runs, "Query latency against corpus size (1 thread, steady)", "ms", out.resolve("scale-latency.png"),
        new String[] {"hybrid p50", "search/latency_steady/hybrid_vector_given/p50_ms"},
        new String[] {"hybrid p99", "search/latency_steady/hybrid_vector_given/p99_ms"},
        new String[] {"dense p50", "search/latency_steady/dense/p50_ms"},
        new String[] {"bm25 p50", "search/latency_steady/bm25/p50_ms"}, new String[] {"open", "search/open_s", "1000"});
  }

  /** Each series: name, slash path into the result, optional multiplier. */
  private static void chart(List<JsonNode> runs, String title, String unit, Path png, String[]... series)
      throws IOException {
    XYSeriesCollection ds = new XYSeriesCollection();
    for (String[] s : series) {
      XYSeries xy = new XYSeries(s[0] + (s.length > 2 ? " (×" + s[2] + ")" : ""));
      for (JsonNode r : runs) {
        JsonNode v = r;
        for (String part : s[1].split("/")) {
          v = v.path(part);
        }
        if (v.isNumber() && v.asDouble() > 0) {
          xy.add(r.get("chunks").asDouble(), v.asDouble() * (s.length > 2 ? Double.parseDouble(s[2]) : 1));
        }
      }
      if (xy.getItemCount() > 0) {
        ds.addSeries(xy);
      }
    }
    JFreeChart chart = ChartFactory.createXYLineChart(title, "chunks", unit, ds, PlotOrientation.VERTICAL,
        true, false, false);
    XYPlot plot = chart.getXYPlot();
    plot.setDomainAxis(new LogAxis("chunks (log)"));
    plot.setRangeAxis(new LogAxis(unit + " (log)"));
    plot.setRenderer(new XYLineAndShapeRenderer(true, true));
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 800, 450);
  }
}
