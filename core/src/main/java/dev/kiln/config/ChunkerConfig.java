package dev.kiln.config;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
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
 *
 * <p>{@code size} and {@code overlap} default to {@code auto}: the embedding model's recommended
 * chunk size ({@code chunk-size} / {@code chunk-overlap} of its descriptor), else
 * {@link #DEFAULT_SIZE} / {@link #DEFAULT_OVERLAP}. The build resolves them once it knows the model
 * ({@link #resolveAuto}), before anything is chunked, logged or fingerprinted; an explicit size wins.
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
  /** Chunk size when neither the config nor the model names one. */
  public static final int DEFAULT_SIZE = 200;
  /** Overlap when neither the config nor the model names one, or when the size is set explicitly. */
  public static final int DEFAULT_OVERLAP = 32;

  /** Maximum tokens per chunk, or {@code auto} ({@link AutoTokens#AUTO}): the model's recommendation. */
  @JsonSerialize(using = AutoTokens.Writer.class)
  @JsonDeserialize(using = AutoTokens.Reader.class)
  public int size = AutoTokens.AUTO;
  /**
   * Tokens shared by consecutive chunks (at most this many for recursive and structure chunks), or
   * {@code auto}: the model's recommended overlap when the size is auto too, else {@link #DEFAULT_OVERLAP}.
   */
  @JsonSerialize(using = AutoTokens.Writer.class)
  @JsonDeserialize(using = AutoTokens.Reader.class)
  public int overlap = AutoTokens.AUTO;
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
    checkSizes("");
  }

  /**
   * Replaces {@code auto} sizes with the model's recommendation ({@code null}: it has none) and checks
   * the result. An explicit size always wins; an auto overlap follows the model only together with an
   * auto size, since a recommended overlap fits the recommended size, not any size.
   *
   * @param model names the model in error messages
   */
  public void resolveAuto(Integer recommendedSize, Integer recommendedOverlap, String model) {
    boolean autoSize = size == AutoTokens.AUTO;
    if (autoSize) {
      size = recommendedSize != null ? recommendedSize : DEFAULT_SIZE;
    }
    if (overlap == AutoTokens.AUTO) {
      overlap = autoSize && recommendedOverlap != null ? recommendedOverlap : DEFAULT_OVERLAP;
    }
    checkSizes(autoSize ? "auto = " + size + ", the chunk size for model " + model : "");
  }

  /** Whether {@code size} or {@code overlap} is still {@code auto}. */
  public boolean unresolved() {
    return size == AutoTokens.AUTO || overlap == AutoTokens.AUTO;
  }

  /** The size a chunker cuts at: {@code auto} not resolved against a model is {@link #DEFAULT_SIZE}. */
  public int effectiveSize() {
    return size == AutoTokens.AUTO ? DEFAULT_SIZE : size;
  }

  /** The overlap a chunker uses: {@code auto} not resolved against a model is {@link #DEFAULT_OVERLAP}. */
  public int effectiveOverlap() {
    return overlap == AutoTokens.AUTO ? DEFAULT_OVERLAP : overlap;
  }

  /**
   * Range checks; an unresolved {@code auto} value is checked once it is resolved. {@code auto}
   * describes a size that came from the model, for the messages; empty for an explicit size.
   */
  private void checkSizes(String auto) {
    String sized = "(" + (auto.isEmpty() ? Integer.toString(size) : auto) + ")";
    if (size != AutoTokens.AUTO && size < 8) {
      throw new ConfigException("chunker.size must be at least 8 tokens or auto, was " + size);
    }
    if (overlap != AutoTokens.AUTO && overlap < 0) {
      throw new ConfigException("chunker.overlap must be >= 0 or auto, was " + overlap);
    }
    if (size != AutoTokens.AUTO && overlap != AutoTokens.AUTO && overlap >= size) {
      throw new ConfigException("chunker.overlap must be >= 0 and < chunker.size " + sized + ", was " + overlap);
    }
    if (size != AutoTokens.AUTO && hardCap < size) {
      throw new ConfigException(
          "chunker.hard-cap must be >= chunker.size " + sized + ", was " + hardCap);
    }
    if (parents == null) {
      parents = new ParentConfig();
    }
    if (parents.enabled && size != AutoTokens.AUTO && parents.size <= size) {
      throw new ConfigException("chunker.parents.size must be larger than chunker.size " + sized + ", was "
          + parents.size);
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
