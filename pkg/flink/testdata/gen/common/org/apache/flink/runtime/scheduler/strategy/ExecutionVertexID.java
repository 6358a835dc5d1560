package org.apache.flink.runtime.scheduler.strategy;

import org.apache.flink.runtime.jobgraph.JobVertexID;

public class ExecutionVertexID implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final JobVertexID jobVertexId;
    private final int subtaskIndex;

    public ExecutionVertexID(JobVertexID jobVertexId, int subtaskIndex) {
        this.jobVertexId = jobVertexId;
        this.subtaskIndex = subtaskIndex;
    }

    @Override
    public String toString() {
        return jobVertexId + "_" + subtaskIndex;
    }
}
