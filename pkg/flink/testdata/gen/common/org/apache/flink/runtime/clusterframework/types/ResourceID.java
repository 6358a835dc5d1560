package org.apache.flink.runtime.clusterframework.types;

public class ResourceID implements java.io.Serializable {
    private static final long serialVersionUID = 42L;
    private final String resourceId;
    private final String metadata;

    public ResourceID(String resourceId) {
        this.resourceId = resourceId;
        this.metadata = "";
    }
}
