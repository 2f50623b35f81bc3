package dev.kiln.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.Locale;

/**
 * A token count that may be {@code auto}: chosen later from what the build knows (the model's
 * recommendation, {@link ChunkerConfig#resolveAuto}). In Java it is an {@code int} with
 * {@link #AUTO} standing for {@code auto}, so code and tests keep assigning plain numbers; in YAML,
 * on the command line and in the effective config it reads and prints as the word {@code auto}.
 */
public final class AutoTokens {
  /** The in-memory value of {@code auto}; never a valid count. */
  public static final int AUTO = -1;
  /** How YAML and {@code --set} spell it. */
  public static final String WORD = "auto";

  private AutoTokens() {}

  /** Whether {@code text} spells {@code auto}. */
  public static boolean isAuto(String text) {
    return text != null && WORD.equals(text.strip().toLowerCase(Locale.ROOT));
  }

  /** {@code auto} or the number, as the effective config prints it. */
  public static String format(int tokens) {
    return tokens == AUTO ? WORD : Integer.toString(tokens);
  }

  /** Writes {@link #AUTO} as {@code "auto"}, any other value as the number it is. */
  public static final class Writer extends StdSerializer<Integer> {
    private static final long serialVersionUID = 1L;

    public Writer() {
      super(Integer.class);
    }

    @Override
    public void serialize(Integer value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      if (value != null && value == AUTO) {
        gen.writeString(WORD);
      } else if (value != null) {
        gen.writeNumber(value);
      } else {
        gen.writeNull();
      }
    }
  }

  /** Reads a whole number or {@code auto}; anything else is an error naming the key. */
  public static final class Reader extends StdDeserializer<Integer> {
    private static final long serialVersionUID = 1L;

    public Reader() {
      super(Integer.class);
    }

    @Override
    public Integer deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_NUMBER_INT) {
        return p.getIntValue();
      }
      String text = t == JsonToken.VALUE_STRING ? p.getText() : null;
      if (isAuto(text)) {
        return AUTO;
      }
      if (text != null && text.strip().matches("[0-9]{1,9}")) {
        return Integer.parseInt(text.strip());
      }
      String key = p.getParsingContext().getCurrentName();
      String shown = text != null ? text : p.getText();
      throw new ConfigException("chunker." + key + " takes a whole number of tokens or '" + WORD + "', not '"
          + shown + "'");
    }
  }
}
