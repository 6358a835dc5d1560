package gen;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.lang.reflect.Proxy;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes the serialization stream fixtures of package javaser: for each
 * NAME, NAME.ser (what ObjectOutputStream wrote) and NAME.txt (the expected
 * rendering of every top-level content, one "--- N" header each).
 *
 * Usage: java -cp CLASSES gen.Gen OUTPUT_DIR
 */
public final class Gen {
    private final Path dir;

    private Gen(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] args) throws Exception {
        Gen g = new Gen(Path.of(args[0]));
        g.primitiveArrays();
        g.objects();
        g.writeMethod();
        g.externalizable();
        g.enumsAndClasses();
        g.proxy();
        g.maps();
        g.lists();
        g.cycles();
        g.strings();
        g.reset();
        g.inet();
        g.exception();
        g.boxed();
    }

    /** Fixture collects what is written to one stream and its expected rendering. */
    private final class Fixture implements AutoCloseable {
        final String name;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final ObjectOutputStream out;
        final StringBuilder text = new StringBuilder();
        int n;

        Fixture(String name) throws IOException {
            this.name = name;
            out = new ObjectOutputStream(bytes);
        }

        void object(Object v) throws Exception {
            out.writeObject(v);
            text.append("--- ").append(++n).append('\n').append(Render.render(v));
        }

        void block(byte[] b) throws Exception {
            out.write(b);
            text.append("--- ").append(++n).append('\n').append(Render.block(b)).append('\n');
        }

        void aborted(Object v, String expect) throws Exception {
            try {
                out.writeObject(v);
                throw new IllegalStateException("no exception writing " + v);
            } catch (NotSerializableException e) {
                // the stream now holds TC_EXCEPTION and e
            }
            text.append("--- ").append(++n).append('\n').append("aborted ").append(expect).append('\n');
        }

        @Override
        public void close() throws Exception {
            out.close();
            Files.write(dir.resolve(name + ".ser"), bytes.toByteArray());
            Files.writeString(dir.resolve(name + ".txt"), text.toString());
        }
    }

    void primitiveArrays() throws Exception {
        try (Fixture f = new Fixture("primitive_arrays")) {
            f.object(new Object[] {
                new byte[] {0, 1, -1, 127, -128},
                new short[] {0, -1, Short.MAX_VALUE, Short.MIN_VALUE},
                new char[] {'a', 0, '\u00e9', '\ud83d', '\ude00', '\uffff'},
                new int[] {0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE},
                new long[] {0, -1, Long.MAX_VALUE, Long.MIN_VALUE},
                new float[] {0f, -0f, 1.5f, Float.NaN, Float.NEGATIVE_INFINITY, Float.MIN_VALUE},
                new double[] {0d, -0d, Math.PI, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE},
                new boolean[] {true, false, true},
                new int[0],
                new int[][] {{1, 2}, {}, null, {3}},
                new String[] {"x", null, "y"},
            });
            byte[] big = new byte[3000];
            for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 7);
            f.object(big);
        }
    }

    void objects() throws Exception {
        try (Fixture f = new Fixture("objects")) {
            Node leaf = new Node(2, "leaf", null);
            Node root = new Node(1, "root", leaf);
            root.tags = new String[] {"a", "b"};
            f.object(root);
            f.object(new Node(3, null, new Node(4, "\u00fc", null)));
        }
    }

    void writeMethod() throws Exception {
        try (Fixture f = new Fixture("write_method")) {
            f.object(new Custom(5, "h\u00e9llo", new Node(9, "extra", null)));
            f.object(new CustomChild(6, "second", "child"));
        }
    }

    void externalizable() throws Exception {
        try (Fixture f = new Fixture("externalizable")) {
            Ext e = new Ext(42, "ext", new Node(1, "inside", null));
            f.object(e);
            f.object(new Object[] {e, e, new Ext(-1, null, null)});
        }
    }

    void enumsAndClasses() throws Exception {
        try (Fixture f = new Fixture("enums_classes")) {
            f.object(new Object[] {Color.RED, Color.GREEN, Color.RED, Color.BLUE});
            f.object(new Object[] {String.class, int.class, Color.class, int[].class, Node.class, String.class});
            f.object(new Painted(Color.GREEN, Color.class));
        }
    }

    void proxy() throws Exception {
        try (Fixture f = new Fixture("proxy")) {
            Object p = Proxy.newProxyInstance(Gen.class.getClassLoader(),
                new Class<?>[] {Greeter.class, Runnable.class}, new Handler("hi"));
            f.object(p);
            f.object(new Object[] {p, p.getClass(), p});
        }
    }

    void maps() throws Exception {
        try (Fixture f = new Fixture("maps")) {
            HashMap<Object, Object> h = new HashMap<>();
            h.put(1, "one");
            h.put(1000L, "thousand");
            h.put(new Key(7, "seven"), List.of());
            h.put(new Key(8, "eight"), null);
            h.put(null, "null key");
            h.put("s", new Key(7, "value"));
            f.object(h);
            LinkedHashMap<String, Integer> lh = new LinkedHashMap<>();
            for (String s : new String[] {"zeta", "alpha", "mid", "beta"}) lh.put(s, s.length());
            f.object(lh);
            ConcurrentHashMap<String, Object> c = new ConcurrentHashMap<>();
            c.put("count", 3L);
            c.put("avg", 2.5d);
            c.put("list", new ArrayList<>(List.of(1, 2)));
            f.object(c);
            f.object(new ConcurrentHashMap<>());
            f.object(Collections.emptyMap());
            f.object(Collections.singletonMap(new Key(1, "k"), "v"));
            TreeMap<String, Integer> t = new TreeMap<>(Map.of("b", 2, "a", 1, "c", 3));
            f.object(t);
            Hashtable<Integer, String> ht = new Hashtable<>();
            ht.put(1, "a");
            ht.put(2, "b");
            ht.put(3, "c");
            f.object(ht);
            f.object(Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))));
        }
    }

    void lists() throws Exception {
        try (Fixture f = new Fixture("lists")) {
            ArrayList<Object> big = new ArrayList<>();
            for (int i = 0; i < 5000; i++) big.add(i % 3 == 0 ? (Object) ("e" + i) : (Object) (i - 200));
            f.object(big);
            f.object(Collections.emptyList());
            f.object(Collections.singletonList("only"));
            f.object(new LinkedList<>(List.of("l1", "l2")));
            f.object(Arrays.asList("x", "y"));
            f.object(List.of(1, 2, 3));
            f.object(Collections.nCopies(3, "same"));
            f.object(Collections.unmodifiableList(new ArrayList<>(List.of("ro"))));
        }
    }

    void cycles() throws Exception {
        try (Fixture f = new Fixture("cycles")) {
            Node a = new Node(1, "a", null);
            Node b = new Node(2, "b", a);
            a.next = b;
            f.object(a);
            ArrayList<Object> self = new ArrayList<>();
            self.add("first");
            self.add(self);
            HashMap<String, Object> m = new HashMap<>();
            m.put("me", m);
            m.put("list", self);
            self.add(m);
            f.object(self);
            Node shared = new Node(5, "shared", null);
            f.object(new Object[] {shared, shared, new Node(6, "s2", shared)});
        }
    }

    void strings() throws Exception {
        try (Fixture f = new Fixture("strings")) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < 70000; i++) ascii.append((char) ('a' + i % 26));
            StringBuilder wide = new StringBuilder();
            for (int i = 0; i < 30000; i++) wide.append(i % 2 == 0 ? "\u00e9" : "\u4e2d");
            f.object(new Object[] {
                "", "plain", "nul\u0000inside", "caf\u00e9 \u4e2d\u6587", "emoji \ud83d\ude00 and \ud834\udd1e",
                "lone \ud800 high", "lone \udc00 low", "quote\" back\\ nl\n",
                ascii.toString(), wide.toString(), "plain",
            });
        }
    }

    void reset() throws Exception {
        try (Fixture f = new Fixture("reset")) {
            ArrayList<String> l = new ArrayList<>(List.of("a", "b"));
            f.object(l);
            f.object(l);
            f.out.reset();
            l.add("c");
            f.object(l);
            f.out.reset();
            f.block(new byte[] {0, 0, 0, 42});
            f.object(new Object[] {l, l});
            f.out.reset();
            f.object("after");
        }
    }

    void inet() throws Exception {
        try (Fixture f = new Fixture("inet")) {
            f.object(InetAddress.getByAddress("host.example", new byte[] {10, 0, 0, 1}));
            f.object(InetAddress.getByAddress(new byte[] {(byte) 192, (byte) 168, 1, 2}));
            byte[] v6 = new byte[16];
            v6[0] = (byte) 0xfe;
            v6[1] = (byte) 0x80;
            v6[15] = 1;
            f.object(Inet6Address.getByAddress("six", v6, 5));
            byte[] v6b = new byte[16];
            v6b[0] = 0x20;
            v6b[1] = 0x01;
            v6b[2] = 0x0d;
            v6b[3] = (byte) 0xb8;
            v6b[15] = 0x10;
            f.object(InetAddress.getByAddress(v6b));
        }
    }

    void exception() throws Exception {
        try (Fixture f = new Fixture("exception")) {
            f.object("before");
            f.aborted(new Holder(), "java.io.NotSerializableException: java.lang.Object");
            f.object(new Object[] {"after", 1});
        }
    }

    void boxed() throws Exception {
        try (Fixture f = new Fixture("boxed")) {
            f.object(new Object[] {
                5, -5L, (short) 7, (byte) -8, 'c', true, 1.25f, -2.5d, Integer.MIN_VALUE, Long.MAX_VALUE, 5,
            });
        }
    }

    /** bytes returns what DataOutput writes for the given calls. */
    static byte[] bytes(IOConsumer c) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            c.accept(new DataOutputStream(b));
            return b.toByteArray();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    interface IOConsumer {
        void accept(DataOutputStream d) throws IOException;
    }
}
