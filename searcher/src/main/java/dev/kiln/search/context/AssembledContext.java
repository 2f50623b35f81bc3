package dev.kiln.search.context;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Passages packed for an LLM prompt, in prompt order (best at the start and the end).
 *
 * @param snapshotId the snapshot that answered
 * @param budget the token budget
 * @param tokens tokens used, counted with the snapshot model's tokenizer
 * @param blocks the passages in prompt order
 * @param dropped retrieved passages left out because they did not fit
 * @param reason why {@code blocks} is empty, else {@code null}
 */
public record AssembledContext(
    @JsonProperty("snapshot") String snapshotId,
    @JsonProperty("budget") int budget,
    @JsonProperty("tokens") int tokens,
    @JsonProperty("blocks") List<ContextBlock> blocks,
    @JsonProperty("dropped") int dropped,
    @JsonProperty("reason") @JsonInclude(JsonInclude.Include.NON_NULL) String reason) {

  public AssembledContext {
    blocks = List.copyOf(blocks);
  }

  /** The context as prompt text: each passage under its header, separated by blank lines. */
  @JsonProperty("text")
  public String text() {
    StringBuilder out = new StringBuilder();
    for (ContextBlock b : blocks) {
      if (!out.isEmpty()) {
        out.append("\n\n");
      }
      out.append(b.header()).append('\n').append(b.text().strip());
    }
    return out.toString();
  }
}
