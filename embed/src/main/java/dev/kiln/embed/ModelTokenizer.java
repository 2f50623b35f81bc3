package dev.kiln.embed;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import dev.kiln.model.Utf16;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The model's own tokenizer, used twice: by the chunker to measure and cut text in model tokens, and
 * by the embedder to build model inputs. Using one tokenizer for both is what makes "chunk size in
 * tokens" mean what the model will see.
 */
public final class ModelTokenizer implements AutoCloseable {
  private final ModelSpec spec;
  private final HuggingFaceTokenizer plain;
  private final HuggingFaceTokenizer model;

  private ModelTokenizer(ModelSpec spec, HuggingFaceTokenizer plain, HuggingFaceTokenizer model) {
    this.spec = spec;
    this.plain = plain;
    this.model = model;
  }

  public static ModelTokenizer open(ModelSpec spec) {
    DjlEnvironment.prepare();
    return DjlEnvironment.inDjlContext(() -> load(spec));
  }

  private static ModelTokenizer load(ModelSpec spec) {
    try {
      Path file = ModelFiles.materialize(spec, spec.tokenizerResource());
      HuggingFaceTokenizer plain = HuggingFaceTokenizer.builder()
          .optTokenizerPath(file)
          .optAddSpecialTokens(false)
          .optTruncation(false)
          .optPadding(false)
          .build();
      HuggingFaceTokenizer model = HuggingFaceTokenizer.builder()
          .optTokenizerPath(file)
          .optAddSpecialTokens(true)
          .optTruncation(true)
          .optMaxLength(spec.maxTokens())
          .optPadding(false)
          .build();
      return new ModelTokenizer(spec, plain, model);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load the tokenizer of " + spec.name(), e);
    }
  }

  public ModelSpec spec() {
    return spec;
  }

  /**
   * Character spans of the text's tokens, special tokens excluded: {@code spans[0][i]} is where
   * token {@code i} starts and {@code spans[1][i]} where it ends, as indices into {@code text} (UTF-16
   * units, as {@link String#substring} takes them).
   */
  public int[][] tokenSpans(String text) {
    String input = Utf16.replaceUnpaired(text);
    Encoding enc = plain.encode(input, false, false);
    CharSpan[] cs = enc.getCharTokenSpans();
    int[] starts = new int[cs.length];
    int[] ends = new int[cs.length];
    int n = 0;
    for (CharSpan s : cs) {
      if (s == null || s.getEnd() <= s.getStart()) {
        continue; // tokens that cover no source text (rare normaliser artefacts)
      }
      starts[n] = s.getStart();
      ends[n] = s.getEnd();
      n++;
    }
    CodePointOffsets.toUtf16(input, n, starts, ends);
    return new int[][] {Arrays.copyOf(starts, n), Arrays.copyOf(ends, n)};
  }

  /** Tokens in the text without special tokens. */
  public int countTokens(String text) {
    return plain.encode(Utf16.replaceUnpaired(text), false, false).getIds().length;
  }

  /** Model input for one text: special tokens added, truncated at the model's maximum. */
  Encoding encodeForModel(String text) {
    return model.encode(Utf16.replaceUnpaired(text));
  }

  @Override
  public void close() {
    plain.close();
    model.close();
  }
}
