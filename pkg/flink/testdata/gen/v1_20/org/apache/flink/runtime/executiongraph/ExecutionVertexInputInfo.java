package org.apache.flink.runtime.executiongraph;

import java.util.Map;

/** Flink 1.20's form: one partition range and one subpartition range. */
public class ExecutionVertexInputInfo implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final int subtaskIndex;
    private final IndexRange partitionIndexRange;
    private final IndexRange subpartitionIndexRange;

    public ExecutionVertexInputInfo(int subtaskIndex, Map<IndexRange, IndexRange> groups) {
        this.subtaskIndex = subtaskIndex;
        Map.Entry<IndexRange, IndexRange> e = groups.entrySet().iterator().next();
        this.partitionIndexRange = e.getKey();
        this.subpartitionIndexRange = e.getValue();
    }
}
