package org.apache.flink.runtime.jobmaster.event;

import java.util.Map;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.IOMetrics;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;

public class ExecutionVertexFinishedEvent implements JobEvent {
    // The serialVersionUID real Flink 1.20 computes for its class, so that
    // the stream is the one Flink writes.
    private static final long serialVersionUID = 462424865898416179L;

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
