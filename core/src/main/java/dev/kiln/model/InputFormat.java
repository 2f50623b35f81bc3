package dev.kiln.model;

import java.util.Locale;

/** Corpus formats Kiln reads. {@link #AUTO} chooses per file by extension. */
public enum InputFormat {
  AUTO,
  JSONL,
  MARKDOWN,
  HTML;

  /** Format of one file under {@code auto}, or {@code null} when the extension is not a corpus file. */
  public static InputFormat forFileName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.endsWith(".jsonl") || n.endsWith(".ndjson") || n.endsWith(".json")) {
      return JSONL;
    }
    if (n.endsWith(".md") || n.endsWith(".markdown")) {
      return MARKDOWN;
    }
    if (n.endsWith(".html") || n.endsWith(".htm")) {
      return HTML;
    }
    return null;
  }

  public static InputFormat parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown format '" + value + "': expected one of auto, jsonl, markdown, html");
    }
  }
}
