package org.apache.flink.runtime.shuffle;

public class EmptyShuffleMasterSnapshot implements java.io.Serializable {
    // The serialVersionUID real Flink 1.20 computes for its class.
    private static final long serialVersionUID = -9173654644151131152L;
}
