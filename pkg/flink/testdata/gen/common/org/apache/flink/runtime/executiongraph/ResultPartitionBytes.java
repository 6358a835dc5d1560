package org.apache.flink.runtime.executiongraph;

public class ResultPartitionBytes implements java.io.Serializable {
    private final long[] subpartitionBytes;

    public ResultPartitionBytes(long[] subpartitionBytes) {
        this.subpartitionBytes = subpartitionBytes;
    }
}
