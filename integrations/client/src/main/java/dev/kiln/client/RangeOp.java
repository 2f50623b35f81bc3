package dev.kiln.client;

/** A range comparison Kiln evaluates on a key the snapshot indexed for ranges ({@code index.range-fields}). */
public enum RangeOp {
  GT(">", "gt"),
  GTE(">=", "gte"),
  LT("<", "lt"),
  LTE("<=", "lte");

  private final String symbol;
  private final String jsonName;

  RangeOp(String symbol, String jsonName) {
    this.symbol = symbol;
    this.jsonName = jsonName;
  }

  /** The operator as Kiln's filter expressions write it ({@code year>=2020}). */
  public String symbol() {
    return symbol;
  }

  /** The operator's name in the HTTP API's object form ({@code {"year": {"gte": 2020}}}). */
  public String jsonName() {
    return jsonName;
  }
}
