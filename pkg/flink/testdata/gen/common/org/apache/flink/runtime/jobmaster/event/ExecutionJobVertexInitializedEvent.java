package org.apache.flink.runtime.jobmaster.event;

import java.util.Map;
import org.apache.flink.runtime.executiongraph.JobVertexInputInfo;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.JobVertexID;

public class ExecutionJobVertexInitializedEvent implements JobEvent {
    // The serialVersionUID real Flink 1.20 computes for its class, so that
    // the stream is the one Flink writes.
    private static final long serialVersionUID = 9156262402071828178L;

    private final JobVertexID jobVertexId;
    private final int parallelism;
    private final Map<IntermediateDataSetID, JobVertexInputInfo> jobVertexInputInfos;

    public ExecutionJobVertexInitializedEvent(JobVertexID v, int p, Map<IntermediateDataSetID, JobVertexInputInfo> in) {
        this.jobVertexId = v;
        this.parallelism = p;
        this.jobVertexInputInfos = in;
    }
}
