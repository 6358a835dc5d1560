package io.github.jobevent.flinkharness;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmaster.event.FileSystemJobEventStore;
import org.apache.flink.runtime.jobmaster.event.JobEvent;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * EventsDir reads the framing of Flink's job-events directory (files events.0, events.1, ...;
 * records of int32 type, int32 length, payload, big-endian) far enough to count records, and
 * copies the directory; readWithFlink reads it with Flink's own store.
 */
final class EventsDir {
    private EventsDir() {}

    /**
     * readWithFlink reads every event of dir with Flink's own FileSystemJobEventStore (start,
     * readEvent to null, then stop(false), which keeps the files) and returns how many it read.
     */
    static long readWithFlink(Path dir) throws Exception {
        FileSystemJobEventStore store =
                new FileSystemJobEventStore(new org.apache.flink.core.fs.Path(dir.toUri()), new Configuration());
        long n = 0;
        try {
            store.start();
            for (JobEvent e = store.readEvent(); e != null; e = store.readEvent()) {
                n++;
            }
        } finally {
            store.stop(false);
        }
        return n;
    }

    /** files returns events.0, events.1, ... while the numbering is contiguous. */
    static List<Path> files(Path dir) {
        List<Path> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            Path p = dir.resolve("events." + i);
            if (!Files.isRegularFile(p)) {
                return out;
            }
            out.add(p);
        }
    }

    /** count returns how many records of each type (index 1..4) the files from index first hold. */
    static int[] count(Path dir, int first) throws IOException {
        int[] n = new int[5];
        List<Path> fs = files(dir);
        for (int i = first; i < fs.size(); i++) {
            try (InputStream in = Files.newInputStream(fs.get(i));
                    DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(in))) {
                while (true) {
                    int type;
                    int len;
                    try {
                        type = d.readInt();
                        len = d.readInt();
                        d.readNBytes(len);
                    } catch (EOFException e) {
                        break;
                    }
                    if (type >= 1 && type <= 4) {
                        n[type]++;
                    }
                }
            }
        }
        return n;
    }

    /** sizes returns a fingerprint of the directory: every file name and size. */
    static String sizes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return "absent";
        }
        StringBuilder b = new StringBuilder();
        try (var s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                b.append(p.getFileName()).append('=').append(Files.size(p)).append(';');
            }
        }
        return b.toString();
    }

    /**
     * copyTree copies a directory tree (the HA storage directory) into dest, which must not
     * exist: every directory and regular file, byte for byte.
     */
    static void copyTree(Path dir, Path dest) throws IOException {
        try (var w = Files.walk(dir)) {
            for (Path p : w.sorted().toList()) {
                Path to = dest.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else if (Files.isRegularFile(p)) {
                    Files.copy(p, to);
                }
            }
        }
    }
}
