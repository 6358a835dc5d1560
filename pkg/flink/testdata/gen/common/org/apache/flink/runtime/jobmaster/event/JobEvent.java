package org.apache.flink.runtime.jobmaster.event;

public interface JobEvent extends java.io.Serializable {}
