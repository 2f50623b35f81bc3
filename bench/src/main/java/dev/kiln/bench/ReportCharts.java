package dev.kiln.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG charts and the HTML page of the benchmark report, drawn with JFreeChart (headless). */
final class ReportCharts {
  static {
    System.setProperty("java.awt.headless", "true");
  }

  private ReportCharts() {}

  static void ratios(List<BenchReport.Pair> pairs, Path png) throws IOException {
    DefaultCategoryDataset ds = new DefaultCategoryDataset();
    for (BenchReport.Pair p : pairs) {
      ds.addValue(p.speedRatio(), "Kiln speed / raw", p.benchmark() + (p.params().isEmpty() ? "" : " " + p.params()));
    }
    JFreeChart chart = ChartFactory.createBarChart("Kiln vs the raw libraries (same work, same run)", "",
        "speed ratio (>1 = Kiln faster)", ds, PlotOrientation.HORIZONTAL, false, false, false);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 60 + 40 * pairs.size());
  }

  static void recall(JsonNode recall, Path png) throws IOException {
    XYSeries kiln = new XYSeries("Kiln (Lucene HNSW)");
    XYSeries raw = new XYSeries("hnswlib-core");
    for (JsonNode r : recall.get("rows")) {
      kiln.add(r.get("ef").asInt(), r.get("kiln_recall@10").asDouble());
      raw.add(r.get("ef").asInt(), r.get("hnswlib_recall@10").asDouble());
    }
    XYSeriesCollection ds = new XYSeriesCollection();
    ds.addSeries(kiln);
    ds.addSeries(raw);
    JFreeChart chart = ChartFactory.createXYLineChart("ANN recall@10 vs exact", "ef", "recall@10", ds,
        PlotOrientation.VERTICAL, true, false, false);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 700, 400);
  }

  static void e2e(JsonNode e2e, Path png) throws IOException {
    XYSeriesCollection ds = new XYSeriesCollection();
    for (JsonNode r : e2e.get("rows")) {
      String name = "parallelism " + r.get("parallelism").asInt();
      XYSeries s = ds.getSeriesIndex(name) >= 0 ? ds.getSeries(name) : new XYSeries(name);
      if (ds.getSeriesIndex(name) < 0) {
        ds.addSeries(s);
      }
      s.add(r.get("size").asInt(), r.get("wall_s").asDouble());
    }
    JFreeChart chart = ChartFactory.createXYLineChart("End-to-end build time", "corpus size (× original)",
        "wall seconds", ds, PlotOrientation.VERTICAL, true, false, false);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 700, 400);
  }

  static String html(String markdown, Path dir) {
    StringBuilder sb = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><title>Kiln report</title>"
        + "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:collapse}"
        + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child{text-align:left}</style>"
        + "</head><body><h1>Kiln benchmark and quality report</h1>\n");
    boolean inTable = false;
    for (String line : markdown.split("\n")) {
      if (line.startsWith("|")) {
        if (line.startsWith("|---") || line.matches("\\|[-:|]+\\|")) {
          continue;
        }
        if (!inTable) {
          sb.append("<table>\n");
          inTable = true;
        }
        sb.append("<tr>");
        for (String cell : line.substring(1, line.length() - 1).split("\\|")) {
          sb.append("<td>").append(escape(cell.trim().replace("**", ""))).append("</td>");
        }
        sb.append("</tr>\n");
      } else {
        if (inTable) {
          sb.append("</table>\n");
          inTable = false;
        }
        if (!line.isBlank()) {
          sb.append("<h2>").append(escape(line)).append("</h2>\n");
        }
      }
    }
    if (inTable) {
      sb.append("</table>\n");
    }
    for (String png : new String[] {"ratios.png", "recall.png", "e2e.png"}) {
      if (Files.isRegularFile(dir.resolve(png))) {
        sb.append("<p><img src=\"").append(png).append("\"></p>\n");
      }
    }
    return sb.append("</body></html>\n").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
