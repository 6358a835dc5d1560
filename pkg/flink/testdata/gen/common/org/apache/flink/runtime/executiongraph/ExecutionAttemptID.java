package org.apache.flink.runtime.executiongraph;

import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;

public class ExecutionAttemptID implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final ExecutionGraphID executionGraphId;
    private final ExecutionVertexID executionVertexId;
    private final int attemptNumber;

    public ExecutionAttemptID(ExecutionGraphID g, ExecutionVertexID v, int attemptNumber) {
        this.executionGraphId = g;
        this.executionVertexId = v;
        this.attemptNumber = attemptNumber;
    }

    @Override
    public String toString() {
        return String.format("%s_%s_%d", executionGraphId, executionVertexId, attemptNumber);
    }
}
