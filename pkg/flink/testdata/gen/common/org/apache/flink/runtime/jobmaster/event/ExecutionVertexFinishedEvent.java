package org.apache.flink.runtime.jobmaster.event;

import java.util.Map;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.IOMetrics;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;

public class ExecutionVertexFinishedEvent implements JobEvent {
    private final ExecutionAttemptID executionAttemptId;
    private final TaskManagerLocation taskManagerLocation;
    private transient Map<Object, Object> operatorCoordinatorSnapshotFutures;
    private transient Object shuffleMasterSnapshotFuture;
    private final IOMetrics ioMetrics;
    private final Map<String, Object> userAccumulators;

    public ExecutionVertexFinishedEvent(ExecutionAttemptID a, TaskManagerLocation l, IOMetrics m, Map<String, Object> acc) {
        this.executionAttemptId = a;
        this.taskManagerLocation = l;
        this.ioMetrics = m;
        this.userAccumulators = acc;
    }
}
