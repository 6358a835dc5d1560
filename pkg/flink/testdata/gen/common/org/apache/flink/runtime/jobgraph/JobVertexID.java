package org.apache.flink.runtime.jobgraph;

public class JobVertexID extends org.apache.flink.util.AbstractID {
    private static final long serialVersionUID = 1L;

    public JobVertexID(long lowerPart, long upperPart) {
        super(lowerPart, upperPart);
    }
}
