package org.apache.flink.runtime.executiongraph;

import java.util.List;

public class JobVertexInputInfo implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final List<ExecutionVertexInputInfo> executionVertexInputInfos;

    public JobVertexInputInfo(List<ExecutionVertexInputInfo> infos) {
        this.executionVertexInputInfos = infos;
    }
}
