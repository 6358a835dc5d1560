package gen;

import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders an object graph as the text that the Go golden test renders from
 * the decoded stream. Values of identity (objects, arrays, lists, maps) seen
 * more than once get a label #n on their first rendering and ^n afterwards.
 */
final class Render {
    private final IdentityHashMap<Object, Integer> count = new IdentityHashMap<>();
    private final IdentityHashMap<Object, Integer> label = new IdentityHashMap<>();
    private final IdentityHashMap<Object, Boolean> done = new IdentityHashMap<>();
    private int next = 1;
    private StringBuilder out;

    static String render(Object v) throws Exception {
        Render r = new Render();
        r.out = new StringBuilder();
        r.value(v, 0, "");          // counting pass
        r.done.clear();
        r.out = new StringBuilder();
        r.counting = false;
        r.value(v, 0, "");
        return r.out.toString();
    }

    private boolean counting = true;

    private void line(int indent, String s) {
        out.append(" ".repeat(indent)).append(s).append('\n');
    }

    /** identity returns the label prefix, or null when v was rendered already (a ^n line was written). */
    private String identity(Object v, int indent, String prefix) {
        if (counting) {
            count.merge(v, 1, Integer::sum);
            if (done.containsKey(v)) {
                line(indent, prefix + "^");
                return null;
            }
            done.put(v, true);
            return "";
        }
        if (done.containsKey(v)) {
            line(indent, prefix + "^" + label.get(v));
            return null;
        }
        done.put(v, true);
        if (count.get(v) > 1) {
            label.put(v, next);
            return "#" + (next++) + " ";
        }
        return "";
    }

    private void value(Object v, int indent, String prefix) throws Exception {
        if (v == null) {
            line(indent, prefix + "null");
        } else if (v instanceof String) {
            line(indent, prefix + str((String) v));
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                || v instanceof Character || v instanceof Boolean || v instanceof Float || v instanceof Double) {
            line(indent, prefix + v.getClass().getName() + " " + prim(v));
        } else if (v instanceof Enum) {
            Enum<?> e = (Enum<?>) v;
            line(indent, prefix + "enum " + e.getDeclaringClass().getName() + "." + e.name());
        } else if (v instanceof Class) {
            Class<?> c = (Class<?>) v;
            line(indent, prefix + "class " + (Proxy.isProxyClass(c) ? "proxy " + ifaces(c) : c.getName()));
        } else if (v instanceof InetAddress) {
            line(indent, prefix + "inet " + v);
        } else if (v instanceof Block) {
            line(indent, prefix + block(((Block) v).b));
        } else if (v.getClass().isArray()) {
            array(v, indent, prefix);
        } else if (v instanceof List) {
            String l = identity(v, indent, prefix);
            if (l == null) return;
            List<?> list = (List<?>) v;
            line(indent, prefix + l + wireName(v.getClass()) + " size=" + list.size());
            for (Object e : list) value(e, indent + 2, "- ");
        } else if (v instanceof Map) {
            String l = identity(v, indent, prefix);
            if (l == null) return;
            Map<?, ?> m = (Map<?, ?>) v;
            line(indent, prefix + l + wireName(v.getClass()) + " size=" + m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                value(e.getKey(), indent + 2, "key: ");
                value(e.getValue(), indent + 2, "value: ");
            }
        } else if (Proxy.isProxyClass(v.getClass())) {
            String l = identity(v, indent, prefix);
            if (l == null) return;
            line(indent, prefix + l + "proxy " + ifaces(v.getClass()));
            value(Proxy.getInvocationHandler(v), indent + 2, "h = ");
        } else if (v instanceof Wired && v instanceof java.io.Externalizable) {
            String l = identity(v, indent, prefix);
            if (l == null) return;
            line(indent, prefix + l + "external " + v.getClass().getName());
            for (Object e : ((Wired) v).wire()) value(e, indent + 2, "- ");
        } else {
            object(v, indent, prefix);
        }
    }

    private void object(Object v, int indent, String prefix) throws Exception {
        if (!v.getClass().getName().startsWith("gen.")) {
            throw new IllegalArgumentException("no rendering for " + v.getClass());
        }
        String l = identity(v, indent, prefix);
        if (l == null) return;
        line(indent, prefix + l + "object " + v.getClass().getName());
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = v.getClass(); c != null && ObjectStreamClass.lookup(c) != null; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        for (Class<?> c : chain) {
            line(indent + 2, c.getName() + ":");
            for (ObjectStreamField f : ObjectStreamClass.lookup(c).getFields()) {
                Field rf = c.getDeclaredField(f.getName());
                rf.setAccessible(true);
                Object fv = rf.get(v);
                if (f.isPrimitive()) {
                    line(indent + 4, f.getName() + " = " + primName(f.getTypeCode()) + " " + prim(fv));
                } else {
                    value(fv, indent + 4, f.getName() + " = ");
                }
            }
            if (v instanceof Wired && hasWriteObject(c) && declaresWire(c)) {
                List<Object> w = ((Wired) v).wire();
                if (!w.isEmpty()) {
                    line(indent + 4, "annotation:");
                    for (Object e : w) value(e, indent + 6, "- ");
                }
            }
        }
    }

    /** wireName returns the name of the class that writeReplace puts in the stream for c. */
    private static String wireName(Class<?> c) {
        String n = c.getName();
        if (n.startsWith("java.util.ImmutableCollections$")) return "java.util.CollSer";
        if (n.equals("java.util.Collections$UnmodifiableRandomAccessList")) return "java.util.Collections$UnmodifiableList";
        return n;
    }

    private static boolean declaresWire(Class<?> c) {
        try {
            c.getDeclaredMethod("wire");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static boolean hasWriteObject(Class<?> c) {
        try {
            c.getDeclaredMethod("writeObject", ObjectOutputStream.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private void array(Object v, int indent, String prefix) throws Exception {
        String l = identity(v, indent, prefix);
        if (l == null) return;
        String name = v.getClass().getName();
        int n = java.lang.reflect.Array.getLength(v);
        if (v instanceof Object[]) {
            line(indent, prefix + l + name + " len=" + n);
            for (Object e : (Object[]) v) value(e, indent + 2, "- ");
            return;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) b.append(", ");
            b.append(prim(java.lang.reflect.Array.get(v, i)));
        }
        line(indent, prefix + l + name + " len=" + n + " {" + b + "}");
    }

    private static String ifaces(Class<?> c) {
        StringBuilder b = new StringBuilder("[");
        for (Class<?> i : c.getInterfaces()) {
            if (b.length() > 1) b.append(", ");
            b.append(i.getName());
        }
        return b.append("]").toString();
    }

    static String primName(char code) {
        switch (code) {
            case 'B': return "byte";
            case 'C': return "char";
            case 'D': return "double";
            case 'F': return "float";
            case 'I': return "int";
            case 'J': return "long";
            case 'S': return "short";
            default: return "boolean";
        }
    }

    static String prim(Object v) {
        if (v instanceof Byte) return String.format("%02x", (Byte) v);
        if (v instanceof Character) return String.format("%04x", (int) (Character) v);
        if (v instanceof Float) return String.format("%08x", Float.floatToRawIntBits((Float) v));
        if (v instanceof Double) return String.format("%016x", Double.doubleToRawLongBits((Double) v));
        return String.valueOf(v);
    }

    static String block(byte[] b) throws Exception {
        if (b.length > 64) return "block len=" + b.length + " sha256=" + sha(b);
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return "block len=" + b.length + " " + s;
    }

    static String sha(byte[] b) throws Exception {
        byte[] d = MessageDigest.getInstance("SHA-256").digest(b);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) s.append(String.format("%02x", d[i]));
        return s.toString();
    }

    /** str quotes s by code point; a surrogate without its pair becomes U+FFFD. */
    static String str(String s) throws Exception {
        StringBuilder clean = new StringBuilder();
        s.codePoints().forEach(cp -> clean.appendCodePoint(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp));
        String c = clean.toString();
        int n = c.codePointCount(0, c.length());
        if (n > 100) {
            String head = c.substring(0, c.offsetByCodePoints(0, 40));
            return "string cps=" + n + " sha256=" + sha(c.getBytes(StandardCharsets.UTF_8)) + " " + quote(head) + "...";
        }
        return quote(c);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        s.codePoints().forEach(cp -> {
            if (cp == '"' || cp == '\\') b.append('\\').append((char) cp);
            else if (cp >= 0x20 && cp < 0x7f) b.append((char) cp);
            else b.append(String.format("\\u{%x}", cp));
        });
        return b.append('"').toString();
    }
}
