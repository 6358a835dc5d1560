package io.github.jobevent.flinkharness;

import java.util.Collection;
import java.util.Map;

/**
 * Json writes maps, lists, strings, numbers, booleans and null as indented JSON; objects two
 * levels down (the rows of a table) go on one line. Maps keep their iteration order (use
 * LinkedHashMap), so truth.json reads in a fixed key order.
 */
final class Json {
    private Json() {}

    static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v, 0);
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, Object v, int indent) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String s) {
            string(b, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                b.append("{}");
                return;
            }
            if (indent >= 2) {
                inline(b, m);
                return;
            }
            b.append("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(first ? "\n" : ",\n");
                first = false;
                pad(b, indent + 1);
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                write(b, e.getValue(), indent + 1);
            }
            b.append("\n");
            pad(b, indent);
            b.append("}");
        } else if (v instanceof Collection<?> c) {
            if (c.isEmpty()) {
                b.append("[]");
                return;
            }
            boolean flat = c.stream().noneMatch(x -> x instanceof Map || x instanceof Collection);
            b.append("[");
            boolean first = true;
            for (Object x : c) {
                if (flat) {
                    b.append(first ? "" : ", ");
                } else {
                    b.append(first ? "\n" : ",\n");
                    pad(b, indent + 1);
                }
                first = false;
                write(b, x, indent + 1);
            }
            if (!flat) {
                b.append("\n");
                pad(b, indent);
            }
            b.append("]");
        } else {
            throw new IllegalArgumentException("json: cannot write " + v.getClass());
        }
    }

    /** inline writes a map on one line: the rows of truth.json's tables read one per line. */
    private static void inline(StringBuilder b, Object v) {
        if (v instanceof Map<?, ?> m) {
            b.append("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(first ? "" : ", ");
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                inline(b, e.getValue());
            }
            b.append("}");
        } else if (v instanceof Collection<?> c) {
            b.append("[");
            boolean first = true;
            for (Object x : c) {
                b.append(first ? "" : ", ");
                first = false;
                inline(b, x);
            }
            b.append("]");
        } else {
            write(b, v, 0);
        }
    }

    private static void pad(StringBuilder b, int indent) {
        b.append("  ".repeat(indent));
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
