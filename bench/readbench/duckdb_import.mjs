// Times DuckDB converting a JSON lines log to Parquet, the peer of
// `jobevent import` on the same file: COPY (SELECT * FROM read_json(...,
// sample_size = -1: every line names the columns))
// TO ... (FORMAT parquet), each run once untimed and then RUNS times, in
// a fresh output file; prints the median wall time and the process CPU time
// (every DuckDB thread) of that run. bench/import.sh copies it next to its
// node_modules and runs it:
//
//   node duckdb_import.mjs LOG.jsonl OUT_DIR [RUNS]
import { DuckDBInstance } from '@duckdb/node-api';
import { rmSync } from 'node:fs';

const [jsonl, outDir, runsArg] = process.argv.slice(2);
if (!jsonl || !outDir) {
  console.error('usage: node duckdb_import.mjs LOG.jsonl OUT_DIR [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg || 3);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRowsJson()[0][0];
const version = (await conn.runAndReadAll('SELECT version()')).getRowsJson()[0][0];
const spans = [];
for (let i = 0; i <= runs; i++) {
  const out = `${outDir}/duckdb-${i}.parquet`;
  const sql = `COPY (SELECT * FROM read_json(${q(jsonl)}, sample_size = -1)) TO ${q(out)} (FORMAT parquet)`;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await conn.run(sql);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  rmSync(out, { force: true });
  if (i > 0) spans.push({ wall, cpu: (cpu.user + cpu.system) / 1e6 }); // run 0 is the warm-up
}
spans.sort((a, b) => a.wall - b.wall);
const m = spans[(spans.length - 1) >> 1];
console.log(`duckdb   ${m.wall.toFixed(2).padStart(8)} s wall ${m.cpu.toFixed(2).padStart(28)} s CPU   (DuckDB ${version}, ${threads} threads, JSON lines to Parquet)`);
console.log(`duckdb_wall ${m.wall}`);
