package org.apache.flink.api.common.accumulators;

public class LongCounter implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private long localValue;

    public LongCounter(long value) {
        this.localValue = value;
    }
}
