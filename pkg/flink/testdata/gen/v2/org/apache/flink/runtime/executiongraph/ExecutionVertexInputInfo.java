package org.apache.flink.runtime.executiongraph;

import java.util.Map;

/** Flink 2.x's form: a map from partition range to subpartition range. */
public class ExecutionVertexInputInfo implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final int subtaskIndex;
    private final Map<IndexRange, IndexRange> consumedSubpartitionGroups;

    public ExecutionVertexInputInfo(int subtaskIndex, Map<IndexRange, IndexRange> groups) {
        this.subtaskIndex = subtaskIndex;
        this.consumedSubpartitionGroups = groups;
    }
}
