package dev.kiln.index;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;

/** The text analyzers a snapshot can be built with, by the name its manifest records. */
public final class Analyzers {
  private Analyzers() {}

  public static Analyzer forName(String name) {
    return switch (name) {
      case "english" -> new EnglishAnalyzer();
      case "standard" -> new StandardAnalyzer();
      default -> throw new IllegalArgumentException("unknown analyzer '" + name + "'");
    };
  }
}
