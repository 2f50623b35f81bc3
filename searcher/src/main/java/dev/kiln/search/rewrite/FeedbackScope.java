package dev.kiln.search.rewrite;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.util.Locale;

/**
 * Where hybrid search's feedback passes ({@link DenseFeedback}, {@link LexicalFeedback}) look for
 * their second-pass results ({@code --prf-scope}).
 *
 * <p>{@code CANDIDATES} (the default) re-scores the documents the first pass already found: the dense
 * leg's candidates against the expanded vector (one dot product each), and the union of both legs'
 * candidates against the expanded BM25 query. {@code INDEX} runs both second passes over the whole
 * snapshot, as Kiln did before: one more graph walk and one more BM25 query of about twenty terms,
 * which at a million chunks made the feedback steps cost more than the rest of hybrid search together
 * (docs/results/scale.md). At depth 100 per leg the feedback mostly re-orders candidates fusion already
 * holds; what each scope is worth on the quality sets is in docs/QUALITY.md.
 */
public enum FeedbackScope {
  CANDIDATES,
  INDEX;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws SettingException naming {@link Setting#FEEDBACK_SCOPE} for anything but candidates or index */
  public static FeedbackScope parse(String value) {
    for (FeedbackScope s : values()) {
      if (value != null && s.label().equalsIgnoreCase(value.trim())) {
        return s;
      }
    }
    throw new SettingException("unknown ", Setting.FEEDBACK_SCOPE, " '" + value + "': valid values are candidates, index");
  }
}
