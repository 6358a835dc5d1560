package org.apache.flink.runtime.executiongraph;

public class ExecutionGraphID extends org.apache.flink.util.AbstractID {
    private static final long serialVersionUID = 1L;

    public ExecutionGraphID(long lowerPart, long upperPart) {
        super(lowerPart, upperPart);
    }
}
