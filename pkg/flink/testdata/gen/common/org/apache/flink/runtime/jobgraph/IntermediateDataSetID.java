package org.apache.flink.runtime.jobgraph;

public class IntermediateDataSetID extends org.apache.flink.util.AbstractID {
    private static final long serialVersionUID = 1L;

    public IntermediateDataSetID(long lowerPart, long upperPart) {
        super(lowerPart, upperPart);
    }
}
