package org.apache.flink.runtime.shuffle;

public class EmptyShuffleMasterSnapshot implements java.io.Serializable {}
