package org.apache.flink.runtime.executiongraph;

import java.util.Map;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;

public class IOMetrics implements java.io.Serializable {
    private static final long serialVersionUID = -7208093607556457183L;
    protected long numRecordsIn;
    protected long numRecordsOut;
    protected long numBytesIn;
    protected long numBytesOut;
    protected long accumulateBackPressuredTime;
    protected double accumulateBusyTime;
    protected long accumulateIdleTime;
    protected Map<IntermediateResultPartitionID, ResultPartitionBytes> resultPartitionBytes;

    public IOMetrics(long recordsIn, long recordsOut, long bytesIn, long bytesOut,
            Map<IntermediateResultPartitionID, ResultPartitionBytes> resultPartitionBytes) {
        this.numRecordsIn = recordsIn;
        this.numRecordsOut = recordsOut;
        this.numBytesIn = bytesIn;
        this.numBytesOut = bytesOut;
        this.accumulateBackPressuredTime = 3;
        this.accumulateBusyTime = 12.5;
        this.accumulateIdleTime = 4;
        this.resultPartitionBytes = resultPartitionBytes;
    }
}
