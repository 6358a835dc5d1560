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

import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.streaming.api.functions.co.CoFlatMapFunction;
import org.apache.flink.streaming.api.functions.co.CoMapFunction;
import org.apache.flink.util.Collector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * JobBuilder turns a scenario into a real DataStream batch job. The linear job is a number source
 * (0..N-1), the scenario's middle stages, a keyed count (key = n mod K) and a sink; a scenario's
 * {@link Scenario.Shape} builds any other from the same parts ({@link Ctx}). Each part is a job
 * vertex of its own with a {@link Probe}. Every exchange is blocking (BATCH runtime mode, the
 * default ALL_EXCHANGES_BLOCKING shuffle mode).
 */
final class JobBuilder {
    private JobBuilder() {}

    static final TypeInformation<Tuple2<Long, Long>> PAIR = Types.TUPLE(Types.LONG, Types.LONG);

    /** build returns the job graph; input is a directory for the FILE sources' files. */
    static JobGraph build(Scenario s, Path input) throws IOException {
        Configuration conf = Configuration.fromMap(Map.of("execution.runtime-mode", "BATCH"));
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        // -1 leaves every stage without a parallelism of its own to the AdaptiveBatch scheduler.
        env.setParallelism(-1);
        Ctx c = new Ctx(env, s, input);
        if (s.shape != null) {
            s.shape.build(c);
        } else {
            linear(c, s);
        }
        if (c.failure != null) {
            throw c.failure;
        }
        StreamGraph sg = env.getStreamGraph();
        sg.setJobName("jobevent harness: " + s.name);
        JobGraph jg = sg.getJobGraph();
        jg.setJobID(org.apache.flink.api.common.JobID.generate());
        return jg;
    }

    /** linear is the common job: src -> the middle stages -> agg -> sink. */
    private static void linear(Ctx c, Scenario s) {
        DataStream<Long> cur = c.source("src", s.source, s.sourceParallelism);
        for (Scenario.Stage st : s.middle) {
            cur = c.stage(cur, st.name(), st.edge(), st.parallelism());
        }
        DataStream<Tuple2<Long, Long>> agg = c.count(cur, "agg", s.agg.parallelism());
        c.sink(agg, "sink", s.sink.edge(), s.sink.parallelism());
    }

    /**
     * Ctx builds the parts of a job, each a job vertex whose last operator is the probe of its
     * stage: sources, pass-through stages behind an exchange, unions, two-input stages, keyed
     * counts and sinks. Parallelism {@link Scenario#AUTO} leaves a part to the scheduler.
     */
    static final class Ctx {
        private final StreamExecutionEnvironment env;
        private final Scenario s;
        private final Path input;
        private IOException failure;

        Ctx(StreamExecutionEnvironment env, Scenario s, Path input) {
            this.env = env;
            this.s = s;
            this.input = input;
        }

        /** source returns the numbers 0..N-1 from a source of the given kind, probed as stage. */
        DataStream<Long> source(String stage, Scenario.SourceKind kind, int p) {
            SingleOutputStreamOperator<Long> numbers;
            switch (kind) {
                case SEQUENCE:
                    numbers = env.fromSource(new NumberSequenceSource(0, s.records - 1), WatermarkStrategy.noWatermarks(),
                            "numbers");
                    break;
                case NO_BATCH_SNAPSHOT:
                    numbers = env.fromSource(new NoBatchSnapshotSource(0, s.records - 1), WatermarkStrategy.noWatermarks(),
                            "numbers (no batch snapshot)");
                    break;
                case DATAGEN:
                    numbers = env.fromSource(new DataGeneratorSource<>(new Identity(), s.records, Types.LONG),
                            WatermarkStrategy.noWatermarks(), "generated numbers");
                    break;
                case FILE:
                    FileSource<String> files = FileSource.forRecordStreamFormat(new TextLineInputFormat(),
                            new org.apache.flink.core.fs.Path(writeFiles(stage).toUri())).build();
                    numbers = parallelism(env.fromSource(files, WatermarkStrategy.noWatermarks(), "files"), p)
                            .map(new ParseLong()).name("parse");
                    break;
                default:
                    throw new IllegalArgumentException("source " + kind);
            }
            numbers = parallelism(numbers, p);
            return parallelism(numbers.transform(stage, Types.LONG, new Probe<>(stage, false)), p);
        }

        /**
         * writeFiles writes the numbers 0..N-1 as text lines, one split per file, into
         * input/<stage>/: the files a FILE source reads.
         */
        private Path writeFiles(String stage) {
            Path dir = input.resolve(stage);
            try {
                Files.createDirectories(dir);
                for (int f = 0; f < s.files; f++) {
                    StringBuilder b = new StringBuilder();
                    for (long n = f; n < s.records; n += s.files) {
                        b.append(n).append('\n');
                    }
                    Files.writeString(dir.resolve(String.format("part-%03d.txt", f)), b.toString(), StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                failure = e;
            }
            return dir;
        }

        /** stage is a pass-through vertex behind an exchange of the given kind. */
        DataStream<Long> stage(DataStream<Long> in, String stage, Scenario.Edge edge, int p) {
            SingleOutputStreamOperator<Long> t = exchange(in, edge, s.keys).transform(stage, Types.LONG, new Probe<>(stage, false));
            if (edge == Scenario.Edge.FORWARD) {
                t.startNewChain();
            }
            return parallelism(t, p);
        }

        /**
         * twoDatasets is a vertex reading one stream over two exchanges (a self-union): two
         * datasets between the same two vertices.
         */
        DataStream<Long> twoDatasets(DataStream<Long> in, Scenario.Edge a, Scenario.Edge b, String stage, int p) {
            SingleOutputStreamOperator<Long> t = exchange(in, a, s.keys).union(exchange(in, b, s.keys))
                    .transform(stage, Types.LONG, new Probe<>(stage, false));
            return parallelism(t, p);
        }

        /** union is a vertex reading several streams over the given exchange. */
        @SafeVarargs
        final DataStream<Long> union(String stage, Scenario.Edge edge, int p, DataStream<Long>... ins) {
            DataStream<Long> u = exchange(ins[0], edge, s.keys);
            for (int i = 1; i < ins.length; i++) {
                u = u.union(exchange(ins[i], edge, s.keys));
            }
            SingleOutputStreamOperator<Long> t = u.transform(stage, Types.LONG, new Probe<>(stage, false));
            if (edge == Scenario.Edge.FORWARD) {
                t.startNewChain();
            }
            return parallelism(t, p);
        }

        /** connectKeyed is a two-input vertex with both inputs hashed by n mod K (a keyed join). */
        DataStream<Long> connectKeyed(DataStream<Long> a, DataStream<Long> b, String stage, int p) {
            SingleOutputStreamOperator<Long> j = parallelism(
                    a.connect(b).keyBy(new ModKey(s.keys), new ModKey(s.keys)).map(new BothSides()), p);
            return parallelism(j.transform(stage, Types.LONG, new Probe<>(stage, false)), p);
        }

        /**
         * connectBroadcast is a two-input vertex reading main over a rebalance edge and side over a
         * broadcast edge; it passes main's records and drops side's.
         */
        DataStream<Long> connectBroadcast(DataStream<Long> main, DataStream<Long> side, String stage, int p) {
            SingleOutputStreamOperator<Long> j = parallelism(main.rebalance().connect(side.broadcast()).flatMap(new MainOnly()), p);
            return parallelism(j.transform(stage, Types.LONG, new Probe<>(stage, false)), p);
        }

        /** count is the keyed count (n mod K, occurrences) of in, a vertex named stage. */
        DataStream<Tuple2<Long, Long>> count(DataStream<Long> in, String stage, int p) {
            SingleOutputStreamOperator<Tuple2<Long, Long>> pairs = in.map(new ToPair(s.keys));
            int inP = in.getTransformation().getParallelism();
            if (in.getTransformation().isParallelismConfigured() && inP > 0) {
                pairs.setParallelism(inP);
            }
            SingleOutputStreamOperator<Tuple2<Long, Long>> agg = parallelism(
                    pairs.keyBy(new PairKey()).reduce(new SumCounts()), p);
            return parallelism(agg.transform(stage, PAIR, new Probe<>(stage, false)), p);
        }

        /** sink is a sink vertex whose probe keeps the output, behind a forward or rebalance edge. */
        void sink(DataStream<Tuple2<Long, Long>> in, String stage, Scenario.Edge edge, int p) {
            DataStream<Tuple2<Long, Long>> sinkIn = edge == Scenario.Edge.FORWARD ? in.forward() : in.rebalance();
            SingleOutputStreamOperator<Tuple2<Long, Long>> sink = sinkIn.transform(stage, PAIR, new Probe<>(stage, true));
            if (edge == Scenario.Edge.FORWARD) {
                sink.startNewChain();
            }
            sink = parallelism(sink, p);
            sink.sinkTo(new DiscardingSink<>()).name("discard").setParallelism(sink.getParallelism());
        }
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
            case BROADCAST:
                return in.broadcast();
            default:
                throw new IllegalArgumentException("edge " + edge);
        }
    }

    /** Identity generates n for index n: DataGeneratorSource's numbers 0..N-1. */
    static final class Identity implements GeneratorFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long n) {
            return n;
        }
    }

    /** ParseLong reads a line of a FILE source's input. */
    static final class ParseLong implements MapFunction<String, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(String line) {
            return Long.parseLong(line.trim());
        }
    }

    /** BothSides passes the records of both inputs. */
    static final class BothSides implements CoMapFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map1(Long n) {
            return n;
        }

        @Override
        public Long map2(Long n) {
            return n;
        }
    }

    /** MainOnly passes the first input's records and drops the second's (the broadcast side). */
    static final class MainOnly implements CoFlatMapFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap1(Long n, Collector<Long> out) {
            out.collect(n);
        }

        @Override
        public void flatMap2(Long n, Collector<Long> out) {}
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
