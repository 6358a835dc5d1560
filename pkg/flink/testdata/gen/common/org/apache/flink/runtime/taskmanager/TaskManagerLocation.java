package org.apache.flink.runtime.taskmanager;

import java.net.InetAddress;
import org.apache.flink.runtime.clusterframework.types.ResourceID;

public class TaskManagerLocation implements java.io.Serializable {
    private static final long serialVersionUID = -8254407801276350716L;
    private final ResourceID resourceID;
    private final InetAddress inetAddress;
    private final HostNameSupplier hostNameSupplier;
    private final int dataPort;
    private String stringRepresentation;
    private final String nodeId;

    public TaskManagerLocation(ResourceID resourceID, InetAddress inetAddress, int dataPort, boolean ipOnly) {
        this.resourceID = resourceID;
        this.inetAddress = inetAddress;
        this.dataPort = dataPort;
        this.nodeId = "node-" + dataPort;
        this.hostNameSupplier = ipOnly ? new IpOnlyHostNameSupplier(inetAddress) : new DefaultHostNameSupplier(inetAddress);
    }

    public interface HostNameSupplier extends java.io.Serializable {}

    public static class DefaultHostNameSupplier implements HostNameSupplier {
        // The serialVersionUID real Flink 1.20 computes for its class.
        private static final long serialVersionUID = 7376258544554052335L;
        private final InetAddress inetAddress;
        private String hostName;
        private String fqdnHostName;

        DefaultHostNameSupplier(InetAddress inetAddress) {
            this.inetAddress = inetAddress;
            this.hostName = "localhost";
        }
    }

    public static class IpOnlyHostNameSupplier implements HostNameSupplier {
        private final InetAddress inetAddress;

        IpOnlyHostNameSupplier(InetAddress inetAddress) {
            this.inetAddress = inetAddress;
        }
    }
}
