package io.github.jobevent.flinkharness;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.util.Map;

/**
 * JobBuilder turns a scenario into a real DataStream batch job: a number source (0..N-1), the
 * scenario's middle stages, a keyed count (key = n mod K) and a sink, each stage a job vertex of
 * its own with a {@link Probe}. Every exchange is blocking (BATCH runtime mode, the default
 * ALL_EXCHANGES_BLOCKING shuffle mode).
 */
final class JobBuilder {
    private JobBuilder() {}

    static final TypeInformation<Tuple2<Long, Long>> PAIR = Types.TUPLE(Types.LONG, Types.LONG);

    static JobGraph build(Scenario s) {
        Configuration conf = Configuration.fromMap(Map.of("execution.runtime-mode", "BATCH"));
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        // -1 leaves every stage without a parallelism of its own to the AdaptiveBatch scheduler.
        env.setParallelism(-1);

        NumberSequenceSource source = s.source == Scenario.SourceKind.NO_BATCH_SNAPSHOT
                ? new NoBatchSnapshotSource(0, s.records - 1)
                : new NumberSequenceSource(0, s.records - 1);
        String sourceName = s.source == Scenario.SourceKind.NO_BATCH_SNAPSHOT ? "numbers (no batch snapshot)" : "numbers";
        SingleOutputStreamOperator<Long> numbers = parallelism(
                env.fromSource(source, WatermarkStrategy.noWatermarks(), sourceName), s.sourceParallelism);
        DataStream<Long> cur = parallelism(
                numbers.transform("src", Types.LONG, new Probe<>("src", false)), s.sourceParallelism);
        int curParallelism = s.sourceParallelism;

        for (Scenario.Stage st : s.middle) {
            SingleOutputStreamOperator<Long> t = exchange(cur, st.edge(), s.keys)
                    .transform(st.name(), Types.LONG, new Probe<>(st.name(), false));
            if (st.edge() == Scenario.Edge.FORWARD) {
                t.startNewChain();
            }
            cur = parallelism(t, st.parallelism());
            curParallelism = st.parallelism();
        }

        SingleOutputStreamOperator<Tuple2<Long, Long>> pairs = parallelism(cur.map(new ToPair(s.keys)), curParallelism);
        SingleOutputStreamOperator<Tuple2<Long, Long>> agg = parallelism(
                pairs.keyBy(new PairKey()).reduce(new SumCounts()), s.agg.parallelism());
        agg = parallelism(agg.transform("agg", PAIR, new Probe<>("agg", false)), s.agg.parallelism());

        DataStream<Tuple2<Long, Long>> sinkIn = s.sink.edge() == Scenario.Edge.FORWARD ? agg.forward() : agg.rebalance();
        SingleOutputStreamOperator<Tuple2<Long, Long>> sink = sinkIn.transform("sink", PAIR, new Probe<>("sink", true));
        if (s.sink.edge() == Scenario.Edge.FORWARD) {
            sink.startNewChain();
        }
        sink = parallelism(sink, s.sink.parallelism());
        sink.sinkTo(new DiscardingSink<>()).name("discard").setParallelism(sink.getParallelism());

        StreamGraph sg = env.getStreamGraph();
        sg.setJobName("jobevent harness: " + s.name);
        JobGraph jg = sg.getJobGraph();
        jg.setJobID(org.apache.flink.api.common.JobID.generate());
        return jg;
    }

    private static <T> SingleOutputStreamOperator<T> parallelism(SingleOutputStreamOperator<T> op, int p) {
        return p > 0 ? op.setParallelism(p) : op;
    }

    private static DataStream<Long> exchange(DataStream<Long> in, Scenario.Edge edge, int keys) {
        switch (edge) {
            case FORWARD:
                return in.forward();
            case RESCALE:
                return in.rescale();
            case REBALANCE:
                return in.rebalance();
            case HASH:
                return in.keyBy(new ModKey(keys));
            default:
                throw new IllegalArgumentException("edge " + edge);
        }
    }

    /** ModKey keys a number by n mod K. */
    static final class ModKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        ModKey(int keys) {
            this.keys = keys;
        }

        @Override
        public Long getKey(Long n) {
            return n % keys;
        }
    }

    /** ToPair maps n to (n mod K, 1). */
    static final class ToPair implements MapFunction<Long, Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        ToPair(int keys) {
            this.keys = keys;
        }

        @Override
        public Tuple2<Long, Long> map(Long n) {
            return Tuple2.of(n % keys, 1L);
        }
    }

    static final class PairKey implements KeySelector<Tuple2<Long, Long>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Tuple2<Long, Long> t) {
            return t.f0;
        }
    }

    static final class SumCounts implements ReduceFunction<Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Long, Long> reduce(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0, a.f1 + b.f1);
        }
    }
}
