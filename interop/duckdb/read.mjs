// Reads whole segments with DuckDB, each on its own, and prints their rows
// as JSON on stdout, one array of row objects per file, in seq order:
//
//   node read.mjs SEGMENT.parquet...
//
// Lists are summed up as their length (-1 for NULL) and time as epoch
// microseconds (DuckDB's timestamps hold microseconds), so that the caller
// can compare every row with what jobevent decodes. The Go test interop/duckdb_versions_test.go runs it.
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node read.mjs SEGMENT.parquet...');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const len = (col) => `coalesce(len(${col}), -1) AS ${col.replace('.', '_')}`;
const out = [];
for (const file of files) {
  const path = resolve(file).replaceAll("'", "''");
  const sql = `SELECT seq, epoch_us(time) AS time, epoch, kind, job, master, recovering, vertex,
      subtask, parallelism, attempt, worker, records_in, records_out, bytes_in, bytes_out,
      ${len('partitions')}, error, ${len('subtasks')}, reason, ${len('coordinators')}, status,
      coalesce(len(graph.vertices), -1) AS graph_vertices, coalesce(len(graph.edges), -1) AS graph_edges
    FROM read_parquet('${path}') ORDER BY seq`;
  const reader = await conn.runAndReadAll(sql);
  out.push(reader.getRowObjectsJson());
}
console.log(JSON.stringify(out));
