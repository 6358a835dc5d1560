package org.apache.flink.util;

public class AbstractID implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    protected final long upperPart;
    protected final long lowerPart;

    public AbstractID(long lowerPart, long upperPart) {
        this.lowerPart = lowerPart;
        this.upperPart = upperPart;
    }

    @Override
    public int hashCode() {
        return ((int) this.lowerPart) ^ ((int) (this.lowerPart >>> 32)) ^ ((int) this.upperPart) ^ ((int) (this.upperPart >>> 32));
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((AbstractID) o).lowerPart == lowerPart && ((AbstractID) o).upperPart == upperPart;
    }

    @Override
    public String toString() {
        return String.format("%016x%016x", lowerPart, upperPart);
    }
}
