package org.apache.flink.runtime.executiongraph;

public class IndexRange implements java.io.Serializable {
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
