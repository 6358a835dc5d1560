package org.apache.flink.runtime.jobmaster.event;

import java.util.List;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;

public class ExecutionVertexResetEvent implements JobEvent {
    private final List<ExecutionVertexID> executionVertexIds;

    public ExecutionVertexResetEvent(List<ExecutionVertexID> ids) {
        this.executionVertexIds = ids;
    }
}
