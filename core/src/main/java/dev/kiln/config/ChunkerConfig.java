package dev.kiln.config;

import dev.kiln.model.ContentKey;
import dev.kiln.model.ContentType;
import java.io.Serializable;
import java.util.Locale;
import java.util.Set;

/**
 * How documents are cut into chunks. Sizes are in model tokens (special tokens excluded).
 *
 * <p>Under {@code strategy: auto} each content type gets its own strategy: Markdown and HTML their
 * structure-aware chunker, plain text and JSON lines the recursive one. {@code window} or
 * {@code recursive} force one strategy for every document.
 */
public class ChunkerConfig implements Serializable {
  private static final long serialVersionUID = 2L;

  public static final String AUTO = "auto";
  public static final String WINDOW = "window";
  public static final String RECURSIVE = "recursive";
  public static final String MARKDOWN = "markdown";
  public static final String HTML = "html";

  /** {@code auto} (per content type, below), {@code window} or {@code recursive}. */
  public String strategy = AUTO;
  /** Strategy for plain text and JSON lines under {@code auto}: {@code recursive} or {@code window}. */
  public String textStrategy = RECURSIVE;
  /** Strategy for Markdown under {@code auto}: {@code markdown}, {@code recursive} or {@code window}. */
  public String markdownStrategy = MARKDOWN;
  /** Strategy for HTML under {@code auto}: {@code html}, {@code recursive} or {@code window}. */
  public String htmlStrategy = HTML;
  /** Maximum tokens per chunk. */
  public int size = 200;
  /** Tokens shared by consecutive chunks (at most this many for recursive and structure chunks). */
  public int overlap = 32;
  /**
   * Indivisible blocks (fenced code, tables) up to this many tokens stay whole even when larger than
   * {@link #size} (such chunks are flagged oversize); larger ones are split, tables with their header
   * row repeated in every part.
   */
  public int hardCap = 512;
  /** Embed a structured chunk as {@code "breadcrumb\ntext"} instead of {@code "title\ntext"}. */
  public boolean breadcrumbPrefix = true;
  /** Parent-child chunking: small children are indexed, their parents stored in the docstore. */
  public ParentConfig parents = new ParentConfig();

  /** Parent-child settings. */
  public static class ParentConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Index small children pointing to parents (sections or large windows) stored once. */
    public boolean enabled = false;
    /** Maximum tokens per parent; children are {@code chunker.size} tokens. */
    public int size = 800;
  }

  /** The strategy that cuts a document of this content type. */
  public String strategyFor(ContentType type) {
    if (!AUTO.equals(strategy)) {
      return strategy;
    }
    return switch (type) {
      case MARKDOWN -> markdownStrategy;
      case HTML -> htmlStrategy;
      case TEXT -> textStrategy;
    };
  }

  /**
   * A short hash of every setting that changes what a chunk is, plus the tokenizer that counted its
   * tokens. Two builds with one fingerprint cut a document into the same chunks. It is the settings
   * part of every content key ({@link ContentKey#settingsFingerprint}: every public field takes part).
   */
  public String fingerprint(String tokenizer) {
    return ContentKey.settingsFingerprint(this, tokenizer);
  }

  void validate() {
    strategy = lower(strategy, "chunker.strategy");
    textStrategy = lower(textStrategy, "chunker.text-strategy");
    markdownStrategy = lower(markdownStrategy, "chunker.markdown-strategy");
    htmlStrategy = lower(htmlStrategy, "chunker.html-strategy");
    check("chunker.strategy", strategy, Set.of(AUTO, WINDOW, RECURSIVE));
    check("chunker.text-strategy", textStrategy, Set.of(WINDOW, RECURSIVE));
    check("chunker.markdown-strategy", markdownStrategy, Set.of(MARKDOWN, WINDOW, RECURSIVE));
    check("chunker.html-strategy", htmlStrategy, Set.of(HTML, WINDOW, RECURSIVE));
    if (size < 8) {
      throw new ConfigException("chunker.size must be at least 8 tokens, was " + size);
    }
    if (overlap < 0 || overlap >= size) {
      throw new ConfigException(
          "chunker.overlap must be >= 0 and < chunker.size (" + size + "), was " + overlap);
    }
    if (hardCap < size) {
      throw new ConfigException(
          "chunker.hard-cap must be >= chunker.size (" + size + "), was " + hardCap);
    }
    if (parents == null) {
      parents = new ParentConfig();
    }
    if (parents.enabled && parents.size <= size) {
      throw new ConfigException("chunker.parents.size must be larger than chunker.size (" + size
          + "), was " + parents.size);
    }
  }

  private static String lower(String value, String key) {
    if (value == null) {
      throw new ConfigException(key + " must be set");
    }
    return value.trim().toLowerCase(Locale.ROOT);
  }

  private static void check(String key, String value, Set<String> allowed) {
    if (!allowed.contains(value)) {
      throw new ConfigException(key + " '" + value + "' is not supported: use one of "
          + allowed.stream().sorted().toList());
    }
  }
}
