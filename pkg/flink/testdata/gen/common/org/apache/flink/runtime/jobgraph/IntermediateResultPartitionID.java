package org.apache.flink.runtime.jobgraph;

public class IntermediateResultPartitionID implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final IntermediateDataSetID intermediateDataSetID;
    private final int partitionNum;

    public IntermediateResultPartitionID(IntermediateDataSetID ds, int partitionNum) {
        this.intermediateDataSetID = ds;
        this.partitionNum = partitionNum;
    }

    @Override
    public int hashCode() {
        return intermediateDataSetID.hashCode() ^ partitionNum;
    }

    @Override
    public String toString() {
        return intermediateDataSetID + "#" + partitionNum;
    }
}
