// TransformValues prints, as TSV on standard output, what Iceberg's Java
// transforms (org.apache.iceberg.transforms.Transforms) make of a fixed set
// of inputs: package partition's golden file, testdata/java-values.tsv,
// which partition's TestJavaValues compares row by row. Run by regen.sh.
//
// Rows (tab-separated, one header line):
//
//   section  transform  type  input  output  human
//
//   parse   ""         ""    a transform name  Java's toString of
//           Transforms.fromString(name), "!unknown" when Java reads it as an
//           unknown transform, "!error" when it throws
//   result  transform  type  ""    the result type's name, or "!cannot" when
//           the transform does not apply to the type
//   apply   transform  type  input value  the partition value  Java's
//           toHumanString(result type, value) (what partition paths hold)
//
// Values: integers (int, long, date days, timestamp micros, timestamp_ns
// nanos) in decimal; strings as is (none holds a tab, a newline or a
// backslash); double and float as Java's toString (which reads back
// exactly); booleans true/false; null as \N. A transform that throws on an
// input prints "!" and the exception's class as its output.
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SerializableFunction;

public class TransformValues {
  static final String[] TRANSFORMS = {
    "identity", "void", "bucket[1]", "bucket[4]", "bucket[16]", "bucket[1000]", "bucket[2147483647]",
    "truncate[1]", "truncate[3]", "truncate[10]", "truncate[2147483647]", "year", "month", "day", "hour",
  };

  static final String[] PARSE = {
    "identity", "Identity", "IDENTITY", "void", "Void", "year", "Year", "years", "month", "months",
    "day", "DAY", "days", "hour", "hours", "bucket[16]", "Bucket[16]", "BUCKET[16]", "bucket[016]",
    "bucket[1]", "bucket[0]", "bucket[-1]", "bucket[ 16]", "bucket[16 ]", "bucket[]", "bucket",
    "bucket[x]", "bucket[2147483647]", "bucket[2147483648]", "bucket[4", "bucket[16]x",
    "truncate[4]", "Truncate[4]", "truncate[0]", "truncate", "day[3]", "identity[1]", "zorder",
    "unknown", "", " day", "day ", "alwaysNull", "void[1]",
  };

  static long micros(String isoUtc) {
    LocalDateTime t = LocalDateTime.parse(isoUtc);
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
  }

  static List<Object> ints() {
    List<Object> v = new ArrayList<>();
    for (int i : new int[] {
      0, 1, -1, 2, -2, 3, -3, 5, -5, 9, -9, 10, -10, 11, -11, 34, 100, -101, 999, 1000, 123456789,
      -987654321, 2147483647, -2147483648, 2147483646, -2147483647, 1073741824, -1073741825,
    }) {
      v.add(i);
    }
    v.add(null);
    return v;
  }

  static List<Object> longs() {
    List<Object> v = new ArrayList<>();
    for (Object i : ints()) {
      v.add(i == null ? null : (long) (Integer) i);
    }
    for (long l : new long[] {
      Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, 1L << 32, -(1L << 40) + 3,
      2147483648L, -2147483649L, 1510871468000000L, 4611686018427387904L, -4611686018427387905L,
    }) {
      v.add(l);
    }
    return v;
  }

  static List<Object> strings() {
    List<Object> v = new ArrayList<>();
    for (String s : new String[] {
      "", "a", "ab", "abc", "abcd", "abcde", "iceberg", "ice", "Iceberg Table", "héllo", "e\u0301te",
      "ñü€", "日本語テキスト", "\uD83D\uDE00", "a\uD83D\uDE00b\uD83D\uDE00c", "\uD83D\uDE00\uD83D\uDE01\uD83D\uDE02\uD83D\uDE03",
      "\uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67", "Ω≈ç√∫", "\uD800\uDC00x", "null", "0123456789abc",
      "host-0042.example", "über",
    }) {
      v.add(s);
    }
    v.add(null);
    return v;
  }

  static List<Object> timestamps() {
    List<Object> v = new ArrayList<>();
    for (long l : new long[] {
      0, 1, -1, 999_999, -999_999, 1_000_000, -1_000_000, -1_000_001, 100_000, 123_000, 123_456,
      3_599_999_999L, 3_600_000_000L, -3_600_000_000L, -3_600_000_001L, 86_399_999_999L,
      86_400_000_000L, -86_400_000_000L, -86_400_000_001L, 1510871468000000L, 1510871468000001L,
      Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE / 2, Long.MIN_VALUE / 2,
    }) {
      v.add(l);
    }
    for (String s : new String[] {
      "2024-01-02T03:04:05.000006", "2024-01-02T03:04:00", "2024-01-02T03:04:05.5", "2024-02-29T23:59:59.999999",
      "2024-03-01T00:00", "2000-02-29T12:00", "2100-03-01T00:00", "1969-12-31T23:59:59.999999",
      "1969-12-31T00:00", "1969-01-01T00:00", "1968-12-31T23:59:59.999999", "1969-02-01T00:00",
      "1900-03-01T00:00", "1900-02-28T23:59:59", "1600-02-29T01:02:03.004", "0001-01-01T00:00",
      "9999-12-31T23:59:59.999999", "2038-01-19T03:14:08", "1901-12-13T20:45:52", "1970-01-01T00:00:00.001",
      "1970-12-31T23:00", "1971-01-01T00:00",
    }) {
      v.add(micros(s));
    }
    v.add(null);
    return v;
  }

  static List<Object> dates() {
    List<Object> v = new ArrayList<>();
    for (int d : new int[] {
      0, 1, -1, 30, 31, 58, 59, 60, -365, -366, -306, 17486, 19724, 19782, -25508, -719162, 2932896,
      -719163, 2932897, 11016, 10957, -36524, Integer.MAX_VALUE, Integer.MIN_VALUE,
    }) {
      v.add(d);
    }
    v.add(null);
    return v;
  }

  static List<Object> nanos() {
    List<Object> v = new ArrayList<>();
    for (long l : new long[] {
      0, 1, -1, 999, -999, 1000, -1000, -1001, 1510871468000001001L, 1510871468000000000L,
      -3_600_000_000_001L, 86_400_000_000_000L, -86_400_000_000_001L, 1704164645000006007L,
      Long.MAX_VALUE, Long.MIN_VALUE, -1_000_000_000_000_000_000L,
    }) {
      v.add(l);
    }
    v.add(null);
    return v;
  }

  static List<Object> doubles() {
    List<Object> v = new ArrayList<>();
    for (double d : new double[] {
      0.0, -0.0, 1.0, 1.5, 0.1, -2.5, 1e7, 9999999.0, 1e-3, 9.99e-4, 1e10, 1e-5, 123456789.125,
      Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e300, Double.MIN_VALUE,
      Double.MAX_VALUE, 3.141592653589793, -1234.5678, 100.0,
    }) {
      v.add(d);
    }
    v.add(null);
    return v;
  }

  static List<Object> floats() {
    List<Object> v = new ArrayList<>();
    for (float f : new float[] {
      0f, -0f, 1.5f, 0.1f, 1e10f, Float.MAX_VALUE, Float.MIN_VALUE, 16777216f, -7.25f, 1e-4f, 3.3333333f,
    }) {
      v.add(f);
    }
    v.add(null);
    return v;
  }

  static List<Object> booleans() {
    List<Object> v = new ArrayList<>();
    v.add(true);
    v.add(false);
    v.add(null);
    return v;
  }

  static String lit(Object o) {
    if (o == null) {
      return "\\N";
    }
    String s = o.toString();
    if (s.indexOf('\t') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\\') >= 0) {
      throw new IllegalStateException("value holds a tab, newline or backslash: " + s);
    }
    return s;
  }

  static void row(StringBuilder out, String... cols) {
    out.append(String.join("\t", cols)).append('\n');
  }

  @SuppressWarnings("unchecked")
  public static void main(String[] args) {
    StringBuilder out = new StringBuilder();
    row(out, "section", "transform", "type", "input", "output", "human");

    for (String name : PARSE) {
      String got;
      try {
        Transform<?, ?> t = Transforms.fromString(name);
        got = t.getClass().getSimpleName().equals("UnknownTransform") ? "!unknown" : t.toString();
      } catch (RuntimeException e) {
        got = "!error";
      }
      row(out, "parse", "", "", lit(name), got, "");
    }

    Object[][] types = {
      {Types.IntegerType.get(), ints()},
      {Types.LongType.get(), longs()},
      {Types.StringType.get(), strings()},
      {Types.TimestampType.withZone(), timestamps()},
      {Types.TimestampType.withoutZone(), timestamps()},
      {Types.DateType.get(), dates()},
      {Types.TimestampNanoType.withZone(), nanos()},
      {Types.TimestampNanoType.withoutZone(), nanos()},
      {Types.DoubleType.get(), doubles()},
      {Types.FloatType.get(), floats()},
      {Types.BooleanType.get(), booleans()},
    };
    for (String name : TRANSFORMS) {
      Transform<Object, Object> t = (Transform<Object, Object>) Transforms.fromString(name);
      for (Object[] tv : types) {
        Type type = (Type) tv[0];
        if (!t.canTransform(type)) {
          row(out, "result", name, type.toString(), "", "!cannot", "");
          continue;
        }
        Type rt = t.getResultType(type);
        row(out, "result", name, type.toString(), "", rt.toString(), "");
        SerializableFunction<Object, Object> f = t.bind(type);
        for (Object in : (List<Object>) tv[1]) {
          String res;
          String human;
          try {
            Object r = f.apply(in);
            res = lit(r);
            human = t.toHumanString(rt, r);
          } catch (RuntimeException e) {
            res = "!" + e.getClass().getSimpleName();
            human = "";
          }
          row(out, "apply", name, type.toString(), lit(in), res, human);
        }
      }
    }
    // UTF-8 whatever the machine's locale: the strings are the test.
    PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    stdout.print(out);
    stdout.flush();
  }
}
