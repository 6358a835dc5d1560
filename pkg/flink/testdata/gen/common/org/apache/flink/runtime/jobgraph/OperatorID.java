package org.apache.flink.runtime.jobgraph;

public class OperatorID extends org.apache.flink.util.AbstractID {
    private static final long serialVersionUID = 1L;

    public OperatorID(long lowerPart, long upperPart) {
        super(lowerPart, upperPart);
    }
}
