package io.github.jobevent.flinkharness;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * ZooKeeper is the one-server ZooKeeper ensemble of a scenario's MiniCluster (Curator's
 * TestingServer), listening on 127.0.0.1 only, with its data in a directory of the run. Flink
 * reaches it through a TCP relay of the harness, also on 127.0.0.1.
 *
 * <p>It is also the harness's leadership control. The MiniCluster runs Flink's real ZooKeeper HA
 * services, where one leader latch elects the Dispatcher, the ResourceManager, the REST endpoint
 * and every JobMaster together, so a single JobMaster's leadership cannot be revoked on its own.
 * {@link #cut} revokes all of them: the relay drops Flink's connection and refuses new ones, so
 * Flink's Curator client turns SUSPENDED and, with
 * {@code high-availability.zookeeper.client.tolerate-suspended-connections} false (the default),
 * every leader steps down; the JobMaster suspends the job and keeps job-events. The server keeps
 * running, so Flink's session (and its ephemeral latch node) stays alive. {@link #restore} grants
 * leadership back: it first removes the leaders' connection_info nodes that Flink could not clear
 * while cut off (as a leader that steps down while connected does; otherwise a TaskManager may
 * first read the old JobMaster's address after the reconnect, try to register there, and miss
 * the new JobMaster's partition request), then lets Flink reconnect: its session resumes, the
 * latch is won again, and the new Dispatcher recovers the job from the JobGraphStore (the
 * {@code submittedJobGraph} or {@code submittedExecutionPlan} file in the HA storage directory),
 * whose JobMaster recovers from job-events: the failover of a JobManager process that lost
 * ZooKeeper.
 */
final class ZooKeeper implements AutoCloseable {
    /** LEADER is where Flink's leaders publish their addresses (root /flink, cluster id /default). */
    static final String LEADER = "/flink/default/leader";

    private final TestingServer server;
    private final Relay relay;

    ZooKeeper(Path dataDir) throws Exception {
        Map<String, Object> props = Map.of(
                "clientPortAddress", "127.0.0.1",
                "admin.enableServer", "false");
        InstanceSpec spec = new InstanceSpec(dataDir.toFile(), freePort(), -1, -1, true, 1, -1, -1, props, "127.0.0.1");
        server = new TestingServer(spec, true);
        relay = new Relay(server.getPort());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    /** quorum returns the value for high-availability.zookeeper.quorum: the relay. */
    String quorum() {
        return "127.0.0.1:" + relay.port();
    }

    /** cut drops Flink's connection to ZooKeeper: every Flink leader steps down. */
    void cut() {
        relay.cut();
    }

    /**
     * restore clears the leaders' stale connection_info nodes and lets Flink reconnect: its
     * leaders are elected again. It does nothing when Flink is connected.
     */
    void restore() throws Exception {
        if (!relay.isCut()) {
            return;
        }
        clearLeaderAddresses();
        relay.restore();
    }

    private void clearLeaderAddresses() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        org.apache.zookeeper.ZooKeeper zk = new org.apache.zookeeper.ZooKeeper(server.getConnectString(), 30_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(30, TimeUnit.SECONDS)) {
                throw new IOException("no connection to ZooKeeper at " + server.getConnectString());
            }
            if (zk.exists(LEADER, false) == null) {
                return;
            }
            for (String component : zk.getChildren(LEADER, false)) {
                try {
                    zk.delete(LEADER + "/" + component + "/connection_info", -1);
                } catch (KeeperException.NoNodeException e) {
                    // The latch, or a component without a leader.
                }
            }
        } finally {
            zk.close();
        }
    }

    @Override
    public void close() throws IOException {
        relay.close();
        server.close();
    }

    /**
     * Relay forwards TCP connections from 127.0.0.1:port() to the ZooKeeper server; cut drops
     * the open ones and closes every new one at once until restore.
     */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket listener;
        private final int target;
        private final List<Socket> open = new ArrayList<>();
        private boolean cut;
        private final Thread acceptor;

        Relay(int target) throws IOException {
            this.target = target;
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            acceptor = new Thread(this::accept, "zookeeper-relay");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket in = listener.accept();
                    synchronized (this) {
                        if (cut) {
                            in.close();
                            continue;
                        }
                        Socket out = new Socket("127.0.0.1", target);
                        open.add(in);
                        open.add(out);
                        pump(in, out);
                        pump(out, in);
                    }
                } catch (IOException e) {
                    // Closed, or one connection failed: go on while listening.
                }
            }
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // The connection is gone.
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }, "zookeeper-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        synchronized void cut() {
            cut = true;
            open.forEach(Relay::closeQuietly);
            open.clear();
        }

        synchronized boolean isCut() {
            return cut;
        }

        synchronized void restore() {
            cut = false;
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // Already closed.
            }
        }

        @Override
        public synchronized void close() {
            cut();
            try {
                listener.close();
            } catch (IOException e) {
                // Already closed.
            }
        }
    }
}
