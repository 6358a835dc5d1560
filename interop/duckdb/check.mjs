// Runs the DuckDB queries of docs/format.md (every ```sql block of its
// section 5, statement by statement) over a jobevent log, with the log's
// bucket prefix as the working directory, as the document says, and
// prints every statement's result rows as JSON on stdout:
//
//   node check.mjs DOC.md LOG_DIR
//
// Then it reads the view "log" the document defines once more, ordered
// by seq, so that the caller can compare it with "jobevent dump". The Go
// test interop/duckdb_test.go runs it and checks the results.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [docPath, logDir] = process.argv.slice(2);
if (!docPath || !logDir) {
  console.error('usage: node check.mjs DOC.md LOG_DIR');
  process.exit(2);
}
const doc = readFileSync(resolve(docPath), 'utf8');
const section = doc.slice(doc.indexOf('## 5. Querying a log with DuckDB'));
const blocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
if (blocks.length === 0) {
  console.error(`${docPath}: no sql blocks in section 5`);
  process.exit(2);
}
const statements = blocks.flatMap((b) => b.split(/;\s*(?:\n|$)/).map((s) => s.trim()).filter((s) => s !== ''));

process.chdir(resolve(logDir));
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();

// rows runs one statement and returns its rows as JSON-safe objects.
async function rows(sql) {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

const out = { statements: [], log: [] };
for (const sql of statements) {
  try {
    out.statements.push({ sql, rows: await rows(sql) });
  } catch (err) {
    console.error(`statement failed: ${err.message}\n${sql}`);
    process.exit(1);
  }
}
out.log = await rows('SELECT seq, epoch, kind, vertex FROM log ORDER BY seq');
out.stored = (await rows("SELECT count(*) AS n FROM read_parquet('events/*.parquet')"))[0].n;
console.log(JSON.stringify(out));
