package io.github.jobevent.flinkharness;

import org.apache.flink.runtime.jobmaster.event.FileSystemJobEventStore;
import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * FlipCheck decides, for every byte of one job-events file, whether Flink's own reader reads the
 * file with that byte flipped (XOR MASK): {@code FlipCheck FILE NAME MASK} copies FILE, flipped at
 * each offset in turn, into a directory of its own as {@code events.0} and reads it with Flink's
 * {@link FileSystemJobEventStore} (the reader a recovering JobMaster replays with, and its event
 * serializers). MASK (hex) is what each byte is XORed with. A flip Flink reads gives "reads N" (N events returned; a record cut short or a
 * Java stream that ends early ends the file silently, as in Flink); a flip on which readEvent
 * throws gives "fails": Flink would then fail the replay, delete the log and restart the job.
 * Runs of offsets with the same verdict are merged. The table goes to stdout, headed by NAME
 * (the file's path as the table names it) and the Flink version; jobevent's Go test compares its
 * own reader with it.
 */
public final class FlipCheck {
    private FlipCheck() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: FlipCheck FILE NAME MASK");
            System.exit(2);
        }
        int mask = Integer.parseInt(args[2], 16);
        byte[] data = Files.readAllBytes(Path.of(args[0]));
        Path tmp = Files.createTempDirectory("flipcheck");
        try {
            PrintStream out = System.out;
            out.println("# Flink " + EnvironmentInformation.getVersion() + " FileSystemJobEventStore reading " + args[1]
                    + " (" + data.length + " bytes) with one byte XOR 0x" + args[2] + "; regenerate with interop/flink/flipcheck.sh");
            out.println("base " + verdict(tmp.resolve("base"), data));
            String run = null;
            int from = 0;
            for (int i = 0; i <= data.length; i++) {
                String v = null;
                if (i < data.length) {
                    byte[] flipped = data.clone();
                    flipped[i] ^= (byte) mask;
                    v = verdict(tmp.resolve("f" + i), flipped);
                }
                if (run != null && !run.equals(v)) {
                    out.println((from == i - 1 ? String.valueOf(from) : from + "-" + (i - 1)) + " " + run);
                }
                if (run == null || !run.equals(v)) {
                    run = v;
                    from = i;
                }
            }
            out.flush();
        } finally {
            try (Stream<Path> s = Files.walk(tmp)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** verdict reads data as the only file (events.0) of the job-events directory dir. */
    private static String verdict(Path dir, byte[] data) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve("events.0"), data);
        try {
            return "reads " + EventsDir.readWithFlink(dir);
        } catch (Throwable t) {
            if (System.getenv("FLIPCHECK_WHY") != null) {
                Throwable root = t;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                System.err.println(dir.getFileName() + ": " + root);
            }
            return "fails";
        } finally {
            Files.delete(dir.resolve("events.0"));
            Files.delete(dir);
        }
    }
}
