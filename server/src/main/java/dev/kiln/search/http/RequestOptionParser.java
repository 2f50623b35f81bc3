package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.RequestOptions;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SettingException;
import dev.kiln.search.rewrite.QueryRewriters;
import java.util.List;
import java.util.Map;

/**
 * Reads a request's retrieval options ({@link RequestOption}) once, from its query parameters or its
 * JSON body, into the {@link RequestOptions} the searcher applies; the server's own defaults (its
 * {@code --rewriter}) fill what the request leaves. Every refusal is a {@link BadRequest} naming the
 * option: a value of the wrong type, one above the operator's {@link RequestLimits}, one the searcher
 * would refuse (alpha outside 0..1), an unknown rewriter.
 */
final class RequestOptionParser {
  private final RequestLimits limits;
  private final String defaultRewriter;

  /** @param defaultRewriter the rewriter a request that names none runs, or null for the searcher's */
  RequestOptionParser(RequestLimits limits, String defaultRewriter) {
    this.limits = limits;
    this.defaultRewriter = defaultRewriter;
    if (defaultRewriter != null) {
      QueryRewriters.named(defaultRewriter); // an unknown name fails the start, not every request
    }
  }

  RequestLimits limits() {
    return limits;
  }

  /** The options among {@code params} (others are the caller's: q, k, mode, filter, budget). */
  RequestOptions fromParams(Map<String, List<String>> params) {
    RequestOptions.Builder b = RequestOptions.builder();
    for (Map.Entry<String, List<String>> e : params.entrySet()) {
      RequestOption option = RequestOption.named(e.getKey());
      if (option != null) {
        if (e.getValue().size() > 1) {
          throw new BadRequest(option.parameter + " is given " + e.getValue().size() + " times: give it once");
        }
        option.apply(e.getValue().get(0), b, limits);
      }
    }
    return checked(b);
  }

  /** The options among a JSON body's fields: numbers, booleans or strings. */
  RequestOptions fromJson(JsonNode body) {
    RequestOptions.Builder b = RequestOptions.builder();
    for (Map.Entry<String, JsonNode> e : body.properties()) {
      RequestOption option = RequestOption.named(e.getKey());
      if (option != null) {
        JsonNode v = e.getValue();
        if (!(v.isNumber() || v.isBoolean() || v.isTextual())) {
          throw new BadRequest(option.parameter + " must be a " + jsonType(option.type));
        }
        option.apply(v.asText(), b, limits);
      }
    }
    return checked(b);
  }

  private static String jsonType(RequestOption.Type type) {
    return switch (type) {
      case INTEGER -> "integer";
      case NUMBER -> "number";
      case GATE -> "number or \"off\"";
      case BOOLEAN -> "boolean";
      case STRING, FUSION -> "string";
    };
  }

  /** Checks what the searcher would refuse now, so the client hears it before a search thread is taken. */
  private RequestOptions checked(RequestOptions.Builder b) {
    RequestOptions options = b.build();
    if (options.rewriter() == null && defaultRewriter != null) {
      options = new RequestOptions(options.ef(), options.fusion(), options.alpha(), options.denseDepth(),
          options.bm25Depth(), options.minScore(), options.maxDrop(), options.rerank(), options.rerankDepth(),
          options.feedback(), defaultRewriter);
    }
    try {
      options.applyTo(SearchOptions.defaults());
      if (options.rewriter() != null) {
        QueryRewriters.named(options.rewriter());
      }
    } catch (SettingException e) {
      throw new BadRequest(QueryParams.clientMessage(e));
    }
    return options;
  }
}
