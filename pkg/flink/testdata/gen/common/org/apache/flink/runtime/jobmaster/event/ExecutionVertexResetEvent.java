package org.apache.flink.runtime.jobmaster.event;

import java.util.List;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;

public class ExecutionVertexResetEvent implements JobEvent {
    // The serialVersionUID real Flink 1.20 computes for its class, so that
    // the stream is the one Flink writes.
    private static final long serialVersionUID = -2038315817411193355L;

    private final List<ExecutionVertexID> executionVertexIds;

    public ExecutionVertexResetEvent(List<ExecutionVertexID> ids) {
        this.executionVertexIds = ids;
    }
}
