package gen;

import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/** Wired objects list what their writeObject or writeExternal writes: Block and objects. */
interface Wired {
    List<Object> wire();
}

/** Block is primitive data in a Wired list. */
final class Block {
    final byte[] b;

    Block(byte[] b) {
        this.b = b;
    }
}

class Base implements Serializable {
    private static final long serialVersionUID = 11L;
    int id;
    long stamp = -2;
    char initial = '\u00e9';

    Base(int id) {
        this.id = id;
    }
}

class Node extends Base {
    private static final long serialVersionUID = 12L;
    String name;
    Node next;
    String[] tags;
    boolean flag = true;
    byte b = -3;
    short s = 300;
    float f = 0.5f;
    double d = 1e300;
    transient int skipped = 99;

    Node(int id, String name, Node next) {
        super(id);
        this.name = name;
        this.next = next;
    }
}

class Custom implements Serializable, Wired {
    private static final long serialVersionUID = 13L;
    int n;
    String label;
    transient Object extra;

    Custom(int n, String label, Object extra) {
        this.n = n;
        this.label = label;
        this.extra = extra;
    }

    private byte[] big() {
        byte[] b = new byte[1500];
        for (int i = 0; i < b.length; i++) b[i] = (byte) i;
        return b;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        out.writeInt(7);
        out.writeUTF(label);
        out.writeObject(extra);
        out.write(big());
        out.writeLong(-1);
    }

    @Override
    public List<Object> wire() {
        List<Object> w = new ArrayList<>();
        w.add(new Block(Gen.bytes(d -> {
            d.writeInt(7);
            d.writeUTF(label);
        })));
        w.add(extra);
        w.add(new Block(Gen.bytes(d -> {
            d.write(big());
            d.writeLong(-1);
        })));
        return w;
    }
}

/** CustomChild has a writeObject of its own under a superclass that has one too. */
class CustomChild extends Custom {
    private static final long serialVersionUID = 14L;
    String child;

    CustomChild(int n, String label, String child) {
        super(n, label, null);
        this.child = child;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
    }
}

class Ext implements Externalizable, Wired {
    private static final long serialVersionUID = 15L;
    int n;
    String name;
    Object inner;

    public Ext() {}

    Ext(int n, String name, Object inner) {
        this.n = n;
        this.name = name;
        this.inner = inner;
    }

    @Override
    public void writeExternal(ObjectOutput out) throws IOException {
        out.writeInt(n);
        out.writeObject(name);
        out.writeObject(inner);
        out.writeUTF("tail");
    }

    @Override
    public void readExternal(ObjectInput in) {}

    @Override
    public List<Object> wire() {
        List<Object> w = new ArrayList<>();
        w.add(new Block(Gen.bytes(d -> d.writeInt(n))));
        w.add(name);
        w.add(inner);
        w.add(new Block(Gen.bytes(d -> d.writeUTF("tail"))));
        return w;
    }
}

enum Color {
    RED,
    GREEN {
        @Override
        public String toString() {
            return "green";
        }
    },
    BLUE
}

class Painted implements Serializable {
    private static final long serialVersionUID = 16L;
    Color color;
    Class<?> type;

    Painted(Color color, Class<?> type) {
        this.color = color;
        this.type = type;
    }
}

interface Greeter {
    String greet(String who);
}

class Handler implements InvocationHandler, Serializable {
    private static final long serialVersionUID = 17L;
    String tag;

    Handler(String tag) {
        this.tag = tag;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) {
        return tag;
    }
}

class Key implements Serializable {
    private static final long serialVersionUID = 18L;
    int id;
    String s;

    Key(int id, String s) {
        this.id = id;
        this.s = s;
    }

    @Override
    public int hashCode() {
        return id * 31 + s.hashCode();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Key && ((Key) o).id == id && ((Key) o).s.equals(s);
    }
}

class Holder implements Serializable {
    private static final long serialVersionUID = 19L;
    String before = "set";
    Object payload = new Object();
}
