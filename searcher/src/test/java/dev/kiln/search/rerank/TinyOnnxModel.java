package dev.kiln.search.rerank;

import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.search.SnapshotFixture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a tiny ONNX "cross-encoder" for wiring tests, as protobuf bytes built by hand (no ONNX
 * tooling is available here). It has a real cross-encoder's interface — {@code input_ids}, {@code
 * attention_mask}, {@code token_type_ids} of shape [batch, seq] in, {@code logits} [batch, 1] out —
 * but computes something trivial and checkable: the mean over unmasked tokens of {@code input_id +
 * token_type_id}. It says nothing about relevance.
 */
public final class TinyOnnxModel {
  private static final int FLOAT = 1;
  private static final int INT64 = 7;

  private TinyOnnxModel() {}

  public static void write(Path file) throws IOException {
    Files.write(file, model());
  }

  /**
   * A whole cross-encoder directory in {@code dir} for {@code CrossEncoderReranker.open}: this model,
   * the default embedding model's tokenizer (from the model cache, offline) and a model.yaml.
   */
  public static Path writeDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    ModelSpec spec = ModelRegistry.resolve(SnapshotFixture.MODEL);
    Files.copy(ModelFiles.materialize(spec, spec.tokenizerResource()), dir.resolve("tokenizer.json"));
    write(dir.resolve("model.onnx"));
    Files.writeString(dir.resolve("model.yaml"), """
        model-file: model.onnx
        max-tokens: 64
        batch-size: 4
        """);
    return dir;
  }

  /** The score the model gives one encoded pair. */
  static double expectedScore(long[] ids, long[] types) {
    double sum = 0;
    for (int i = 0; i < ids.length; i++) {
      sum += ids[i] + types[i];
    }
    return sum / ids.length;
  }

  private static byte[] model() {
    Proto graph = new Proto()
        .message(1, node("Cast", new String[] {"input_ids"}, "ids_f", intAttr("to", FLOAT)))
        .message(1, node("Cast", new String[] {"token_type_ids"}, "types_f", intAttr("to", FLOAT)))
        .message(1, node("Cast", new String[] {"attention_mask"}, "mask_f", intAttr("to", FLOAT)))
        .message(1, node("Add", new String[] {"ids_f", "types_f"}, "tok", null))
        .message(1, node("Mul", new String[] {"tok", "mask_f"}, "masked", null))
        .message(1, node("ReduceSum", new String[] {"masked"}, "num", axesAttr()))
        .message(1, node("ReduceSum", new String[] {"mask_f"}, "den", axesAttr()))
        .message(1, node("Div", new String[] {"num", "den"}, "logits", null))
        .string(2, "tiny_cross_encoder")
        .message(11, tensor("input_ids", INT64, "batch", "seq"))
        .message(11, tensor("attention_mask", INT64, "batch", "seq"))
        .message(11, tensor("token_type_ids", INT64, "batch", "seq"))
        .message(12, tensor("logits", FLOAT, "batch", null));
    return new Proto()
        .varint(1, 7) // ir_version 7 goes with opset 11-13
        .string(2, "kiln-wiring-test")
        .message(7, graph)
        .message(8, new Proto().varint(2, 11)) // default domain, opset 11: ReduceSum takes axes as attribute
        .bytes();
  }

  private static Proto node(String op, String[] inputs, String output, Proto attribute) {
    Proto n = new Proto();
    for (String in : inputs) {
      n.string(1, in);
    }
    n.string(2, output).string(3, output + "_node").string(4, op);
    if (attribute != null) {
      n.message(5, attribute);
    }
    return n;
  }

  private static Proto intAttr(String name, long value) {
    return new Proto().string(1, name).varint(3, value).varint(20, 2); // type INT
  }

  private static Proto axesAttr() {
    Proto a = new Proto().string(1, "axes").varint(8, 1).varint(20, 7); // ints [1], type INTS
    return a;
  }

  private static Proto tensor(String name, int elemType, String dim0, String dim1) {
    Proto shape = new Proto().message(1, new Proto().string(2, dim0));
    shape.message(1, dim1 == null ? new Proto().varint(1, 1) : new Proto().string(2, dim1));
    Proto tensorType = new Proto().varint(1, elemType).message(2, shape);
    return new Proto().string(1, name).message(2, new Proto().message(1, tensorType));
  }

  /** The few protobuf wire-format writes an ONNX graph needs. */
  private static final class Proto {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Proto varint(int field, long value) {
      tag(field, 0);
      raw(value);
      return this;
    }

    Proto string(int field, String value) {
      return lengthDelimited(field, value.getBytes(StandardCharsets.UTF_8));
    }

    Proto message(int field, Proto value) {
      return lengthDelimited(field, value.bytes());
    }

    private Proto lengthDelimited(int field, byte[] value) {
      tag(field, 2);
      raw(value.length);
      out.writeBytes(value);
      return this;
    }

    private void tag(int field, int wireType) {
      raw(((long) field << 3) | wireType);
    }

    private void raw(long v) {
      while ((v & ~0x7FL) != 0) {
        out.write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      out.write((int) v);
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
