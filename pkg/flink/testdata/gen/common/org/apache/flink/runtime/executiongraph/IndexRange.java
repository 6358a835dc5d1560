package org.apache.flink.runtime.executiongraph;

public class IndexRange implements java.io.Serializable {
    // The serialVersionUID real Flink 1.20 computes for its class, so that
    // the stream is the one Flink writes.
    private static final long serialVersionUID = -7381885467287327710L;

    protected final int startIndex;
    protected final int endIndex;

    public IndexRange(int startIndex, int endIndex) {
        this.startIndex = startIndex;
        this.endIndex = endIndex;
    }

    @Override
    public String toString() {
        return startIndex + "-" + endIndex;
    }

    @Override
    public int hashCode() {
        return 31 * startIndex + endIndex;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexRange && ((IndexRange) o).startIndex == startIndex && ((IndexRange) o).endIndex == endIndex;
    }
}
