package dev.kiln.model;

import java.util.Locale;

/**
 * Corpus formats Kiln reads. {@link #AUTO} chooses per file by extension; a trailing {@code .gz} is
 * looked through (the reader decompresses it). PDF, DOCX and PPTX are binary documents: their text is
 * extracted (one document per file, with its pages, headings or slides as sections).
 */
public enum InputFormat {
  AUTO,
  JSONL,
  MARKDOWN,
  TEXT,
  PARQUET,
  HTML,
  PDF,
  DOCX,
  PPTX;

  /** Format of one file under {@code auto}, or {@code null} when the extension is not a corpus file. */
  public static InputFormat forFileName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (isGzip(n)) {
      n = n.substring(0, n.length() - 3);
    }
    if (n.endsWith(".jsonl") || n.endsWith(".ndjson") || n.endsWith(".json")) {
      return JSONL;
    }
    if (n.endsWith(".md") || n.endsWith(".markdown")) {
      return MARKDOWN;
    }
    if (n.endsWith(".txt") || n.endsWith(".text")) {
      return TEXT;
    }
    if (n.endsWith(".parquet")) {
      return PARQUET;
    }
    if (n.endsWith(".html") || n.endsWith(".htm")) {
      return HTML;
    }
    if (n.endsWith(".pdf")) {
      return PDF;
    }
    if (n.endsWith(".docx")) {
      return DOCX;
    }
    if (n.endsWith(".pptx")) {
      return PPTX;
    }
    return null;
  }

  /** Whether files of this format are binary documents whose text is extracted (PDF, DOCX, PPTX). */
  public boolean isExtracted() {
    return this == PDF || this == DOCX || this == PPTX;
  }

  /** Whether a file is gzip-compressed, judged by its name. */
  public static boolean isGzip(String name) {
    return name.toLowerCase(Locale.ROOT).endsWith(".gz");
  }

  public static InputFormat parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown format '" + value + "': expected one of auto, jsonl, markdown, text, parquet, html, pdf, docx, pptx");
    }
  }
}
