package dev.kiln.index;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;

/** The text analyzers a snapshot can be built with, by the name its manifest records. */
public final class Analyzers {
  /** The analyzer of Chinese documents (and Chinese queries): smartcn word segmentation. */
  public static final String CHINESE = "smartcn";

  private Analyzers() {}

  public static Analyzer forName(String name) {
    return switch (name) {
      case "english" -> new EnglishAnalyzer();
      case "standard" -> new StandardAnalyzer();
      case CHINESE -> new SmartChineseAnalyzer();
      default -> throw new IllegalArgumentException("unknown analyzer '" + name + "'");
    };
  }
}
