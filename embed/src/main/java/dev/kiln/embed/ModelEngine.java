package dev.kiln.embed;

import java.util.Locale;

/** The DJL engine that runs a model file. */
public enum ModelEngine {
  /** ONNX Runtime: {@code .onnx} files; the default and the engine of every bundled model. */
  ONNX("OnnxRuntime"),
  /** PyTorch: TorchScript {@code .pt} files. */
  PYTORCH("PyTorch");

  private final String djlName;

  ModelEngine(String djlName) {
    this.djlName = djlName;
  }

  /** The engine name DJL's {@code Criteria.optEngine} takes. */
  public String djlName() {
    return djlName;
  }

  /** {@code onnx} or {@code pytorch} (also {@code torchscript}), as {@code model.yaml} spells it. */
  public static ModelEngine parse(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "onnx", "onnxruntime" -> ONNX;
      case "pytorch", "torchscript" -> PYTORCH;
      default -> throw new IllegalArgumentException("unknown engine '" + s + "': use onnx or pytorch");
    };
  }

  /** By file extension: {@code .onnx} → ONNX Runtime, {@code .pt}/{@code .pth} → PyTorch. */
  public static ModelEngine forFile(String fileName) {
    String f = fileName.toLowerCase(Locale.ROOT);
    if (f.endsWith(".onnx")) {
      return ONNX;
    }
    if (f.endsWith(".pt") || f.endsWith(".pth")) {
      return PYTORCH;
    }
    throw new IllegalArgumentException("cannot tell the engine of '" + fileName + "': expected .onnx or .pt");
  }
}
