package jobeventsgen;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.runtime.executiongraph.ExecutionVertexInputInfo;
import org.apache.flink.runtime.executiongraph.IOMetrics;
import org.apache.flink.runtime.executiongraph.IndexRange;
import org.apache.flink.runtime.executiongraph.JobVertexInputInfo;
import org.apache.flink.runtime.executiongraph.ResultPartitionBytes;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.jobmaster.event.ExecutionJobVertexInitializedEvent;
import org.apache.flink.runtime.jobmaster.event.ExecutionVertexFinishedEvent;
import org.apache.flink.runtime.jobmaster.event.ExecutionVertexResetEvent;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;

/**
 * Writes a job-events directory in the framing of Flink's
 * FileSystemJobEventStore, with payloads serialized as Flink's serializers
 * do, and expected.txt: one line per record as the Go test prints it.
 *
 * Usage: java -cp CLASSES jobeventsgen.Main OUTPUT_DIR v1_20|v2
 */
public final class Main {
    static final JobVertexID SRC = new JobVertexID(0x1111111111111111L, 0x2222222222222222L);
    static final JobVertexID SRC2 = new JobVertexID(0x0102030405060708L, -1L);
    static final JobVertexID MAP = new JobVertexID(-0x3333333333333333L, 0x4444444444444444L);
    static final JobVertexID SINK = new JobVertexID(0x5555555555555555L, 0x0666666666666666L);
    static final IntermediateDataSetID D1 = new IntermediateDataSetID(0x0aL, 0x0bL);
    static final IntermediateDataSetID D2 = new IntermediateDataSetID(0x7fffffffffffffffL, Long.MIN_VALUE);
    static final ExecutionGraphID G1 = new ExecutionGraphID(0x00000000000000a1L, 0x00000000000000b1L);
    static final ExecutionGraphID G2 = new ExecutionGraphID(0x00000000000000a2L, 0x00000000000000b2L);

    private final Path dir;
    private final boolean v2;
    private final StringBuilder expected = new StringBuilder();
    private DataOutputStream file;
    private String fileName;

    private Main(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Files.createDirectories(out.resolve("job-events"));
        Main m = new Main(out, args[1].equals("v2"));
        m.write();
        Files.writeString(out.resolve("expected.txt"), m.expected.toString());
    }

    private void write() throws Exception {
        InetAddress v4 = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        byte[] six = new byte[16];
        six[0] = 0x20;
        six[1] = 0x01;
        six[15] = 7;
        InetAddress v6 = InetAddress.getByAddress("tm6.example", six);
        TaskManagerLocation tm1 = new TaskManagerLocation(new ResourceID("tm-1"), v4, 40001, false);
        TaskManagerLocation tm2 = new TaskManagerLocation(new ResourceID("tm-2"), v4, 40002, true);
        TaskManagerLocation tm3 = new TaskManagerLocation(new ResourceID("tm-3"), v6, 40003, false);

        open(0);
        initialized(SRC, 2, new LinkedHashMap<>());
        initialized(SRC2, 1, Collections.emptyMap());
        Map<IntermediateDataSetID, JobVertexInputInfo> mapInputs = new LinkedHashMap<>();
        List<ExecutionVertexInputInfo> infos = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            infos.add(new ExecutionVertexInputInfo(i, Collections.singletonMap(new IndexRange(0, 1), new IndexRange(i, i))));
        }
        mapInputs.put(D1, new JobVertexInputInfo(infos));
        initialized(MAP, 3, mapInputs);
        Map<OperatorID, byte[]> coord = new HashMap<>();
        coord.put(new OperatorID(0x1111111111111111L, 0x2222222222222222L), new byte[] {1, 2, 3});
        coord.put(new OperatorID(9, 9), new byte[0]);
        finished(attempt(G1, SRC, 0, 0), tm1, partitions(D1, 0, 10, 20, 30), null, coord, true);
        Map<String, Object> acc = new ConcurrentHashMap<>();
        acc.put("rows", new LongCounter(7));
        finished(attempt(G1, SRC, 1, 0), tm2, partitions(D1, 1, 1, 2, 3), acc, new HashMap<>(), false);
        reset(List.of(new ExecutionVertexID(SRC, 1)));
        finished(attempt(G1, SRC, 1, 1), tm2, partitions(D1, 1, 4, 5, 6), new ConcurrentHashMap<>(), new HashMap<>(), true);
        file.close();

        open(1);
        Map<IntermediateDataSetID, JobVertexInputInfo> sinkInputs = new HashMap<>();
        Map<IndexRange, IndexRange> groups = new LinkedHashMap<>();
        if (v2) {
            groups = new HashMap<>();
            groups.put(new IndexRange(0, 1), new IndexRange(0, 0));
            groups.put(new IndexRange(2, 2), new IndexRange(0, 0));
        } else {
            groups.put(new IndexRange(0, 2), new IndexRange(0, 0));
        }
        sinkInputs.put(D2, new JobVertexInputInfo(List.of(new ExecutionVertexInputInfo(0, groups))));
        initialized(SINK, 1, sinkInputs);
        finished(attempt(G1, MAP, 0, 0), tm3, partitions(D2, 0, 100), null, new HashMap<>(), false);
        reset(List.of(new ExecutionVertexID(MAP, 0), new ExecutionVertexID(SRC, 0)));
        file.close();

        open(2);
        finished(attempt(G2, MAP, 1, 0), tm1, partitions(D2, 1, 200), null, new HashMap<>(), true);
        file.close();
    }

    private void open(int n) throws IOException {
        fileName = "events." + n;
        file = new DataOutputStream(Files.newOutputStream(dir.resolve("job-events").resolve(fileName)));
    }

    private void record(int type, byte[] payload, String line) throws IOException {
        expected.append(fileName).append('@').append(file.size()).append(' ').append(type).append(' ').append(line).append('\n');
        file.writeInt(type);
        file.writeInt(payload.length);
        file.write(payload);
    }

    static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        return b.toByteArray();
    }

    static ExecutionAttemptID attempt(ExecutionGraphID g, JobVertexID v, int subtask, int attempt) {
        return new ExecutionAttemptID(g, new ExecutionVertexID(v, subtask), attempt);
    }

    static Map<IntermediateResultPartitionID, ResultPartitionBytes> partitions(IntermediateDataSetID ds, int n, long... bytes) {
        Map<IntermediateResultPartitionID, ResultPartitionBytes> m = new HashMap<>();
        m.put(new IntermediateResultPartitionID(ds, n), new ResultPartitionBytes(bytes));
        return m;
    }

    private void initialized(JobVertexID v, int p, Map<IntermediateDataSetID, JobVertexInputInfo> inputs) throws Exception {
        StringBuilder line = new StringBuilder(v + " p=" + p + " inputs={");
        boolean first = true;
        for (Map.Entry<IntermediateDataSetID, JobVertexInputInfo> e : inputs.entrySet()) {
            line.append(first ? "" : "; ").append(e.getKey()).append(':');
            first = false;
            for (Object info : (List<?>) field(e.getValue(), "executionVertexInputInfos")) {
                line.append(' ').append(field(info, "subtaskIndex")).append("=[");
                Object g = v2 ? field(info, "consumedSubpartitionGroups") : null;
                Map<?, ?> groups = g != null ? (Map<?, ?>) g
                        : Map.of(field(info, "partitionIndexRange"), field(info, "subpartitionIndexRange"));
                boolean firstGroup = true;
                for (Map.Entry<?, ?> ge : groups.entrySet()) {
                    line.append(firstGroup ? "" : " ").append(ge.getKey()).append('/').append(ge.getValue());
                    firstGroup = false;
                }
                line.append(']');
            }
        }
        record(3, serialize(new ExecutionJobVertexInitializedEvent(v, p, inputs)), line.append('}').toString());
    }

    private void reset(List<ExecutionVertexID> ids) throws Exception {
        record(2, serialize(new ExecutionVertexResetEvent(new ArrayList<>(ids))), ids.toString());
    }

    private void finished(ExecutionAttemptID a, TaskManagerLocation tm, Map<IntermediateResultPartitionID, ResultPartitionBytes> parts,
            Map<String, Object> acc, Map<OperatorID, byte[]> coord, boolean snapshot) throws Exception {
        IOMetrics io = new IOMetrics(11, 22, 33, 44, parts);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        byte[] ev = serialize(new ExecutionVertexFinishedEvent(a, tm, io, acc));
        out.writeInt(ev.length);
        out.write(ev);
        byte[] c = serialize(coord);
        out.writeInt(c.length);
        out.write(c);
        if (snapshot) {
            byte[] s = serialize(new EmptyShuffleMasterSnapshot());
            out.writeInt(s.length);
            out.write(s);
        } else {
            out.writeInt(0);
        }
        StringBuilder line = new StringBuilder(a + " tm=" + field(field(tm, "resourceID"), "resourceId"));
        line.append(" addr=").append(hex(((InetAddress) field(tm, "inetAddress")).getAddress())).append(':').append(field(tm, "dataPort"));
        line.append(" parts={");
        boolean first = true;
        for (Map.Entry<IntermediateResultPartitionID, ResultPartitionBytes> e : parts.entrySet()) {
            line.append(first ? "" : " ").append(e.getKey()).append('=');
            first = false;
            long[] sb = (long[]) field(e.getValue(), "subpartitionBytes");
            for (int i = 0; i < sb.length; i++) line.append(i == 0 ? "" : ",").append(sb[i]);
        }
        line.append("} acc={");
        if (acc != null) {
            first = true;
            for (Map.Entry<String, Object> e : acc.entrySet()) {
                line.append(first ? "" : " ").append(e.getKey()).append('=').append(e.getValue().getClass().getName());
                first = false;
            }
        } else {
            line.append("null");
        }
        line.append("} coord={");
        first = true;
        for (Map.Entry<OperatorID, byte[]> e : coord.entrySet()) {
            line.append(first ? "" : " ").append(e.getKey()).append('=').append(hex(e.getValue()));
            first = false;
        }
        line.append("} snapshot=").append(snapshot);
        record(1, b.toByteArray(), line.toString());
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static Object field(Object o, String name) throws Exception {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name);
    }
}
