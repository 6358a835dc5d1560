// Times DuckDB on a log's segment files, in process, as readbench times
// jobevent: the two-column query and a full scan into memory, each run
// once untimed and then RUNS times; prints the median wall time, the process CPU time (every
// DuckDB thread) of that run, and the result. bench/read.sh copies it next
// to its node_modules and runs it:
//
//   node duckdb.mjs EVENTS_DIR [RUNS]
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, runsArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node duckdb.mjs EVENTS_DIR [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg || 3);
const files = `read_parquet('${dir.replaceAll("'", "''")}/*.parquet')`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const threads = (await conn.runAndReadAll("SELECT current_setting('threads')")).getRowsJson()[0][0];

const measures = [
  ['count', `SELECT count(*), sum(bytes_out) FROM ${files}`],
  ['scan', `CREATE OR REPLACE TEMP TABLE scanned AS SELECT * FROM ${files}`],
];
console.log(`DuckDB ${(await conn.runAndReadAll('SELECT version()')).getRowsJson()[0][0]}, ${threads} threads`);
console.log(`${'measure'.padEnd(10)} ${'wall ms'.padStart(10)} ${'cpu ms'.padStart(10)}  result`);
for (const [name, sql] of measures) {
  const spans = [];
  let result = '';
  await conn.runAndReadAll(sql); // a warm-up run, not timed, as readbench does
  for (let i = 0; i < runs; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const reader = await conn.runAndReadAll(sql);
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    spans.push({ wall, cpu: (cpu.user + cpu.system) / 1e3 });
    result = name === 'count'
      ? `count ${reader.getRowsJson()[0][0]}, sum(bytes_out) ${reader.getRowsJson()[0][1]}`
      : `${(await conn.runAndReadAll('SELECT count(*) FROM scanned')).getRowsJson()[0][0]} rows, every column`;
  }
  spans.sort((a, b) => a.wall - b.wall);
  const s = spans[Math.floor(spans.length / 2)];
  console.log(`${name.padEnd(10)} ${s.wall.toFixed(1).padStart(10)} ${s.cpu.toFixed(1).padStart(10)}  ${result}`);
}
