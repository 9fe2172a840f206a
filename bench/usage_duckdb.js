// DuckDB baseline for bench/usage_vs_duckdb.sh: reads an nvidia-smi CSV log and computes the
// per-GPU hourly aggregates that bench_usage_ingest writes (gpu,hour,count,mean_util,mean_mem,
// max_temp), with 2 threads and explicit column types (no auto-detect).
// Usage: node usage_duckdb.js FILE AGGREGATES.csv [timestamp|text]
// Prints `seconds:` (ingestion + aggregation, not the output) and `rows:`.
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

const [file, out, variant = 'text'] = process.argv.slice(2);
if (!file || !out) {
  console.error('usage: node usage_duckdb.js FILE AGGREGATES.csv [timestamp|text]');
  process.exit(2);
}
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// delim ',' is as fast as ', ' and leaves a leading space on each field: numbers parse through
// it, strings are sliced (' 93 %'[2:-3] = '93', ' 31000 MiB'[2:-5] = '31000') and the uuid is
// trimmed after grouping. Sums of whole numbers are exact, so sum/count is the same double
// as in gpuplan and pandas.
const csvOptions = (tsType) =>
  `delim=',', header=true, auto_detect=false, quote='', escape='', new_line='\\n',
   timestampformat='%Y/%m/%d %H:%M:%S.%g',
   columns={'ts': '${tsType}', 'idx': 'INTEGER', 'uuid': 'VARCHAR', 'util': 'VARCHAR',
            'mem': 'VARCHAR', 'memtot': 'VARCHAR', 'temp': 'INTEGER', 'power': 'VARCHAR'}`;
const sums = `count(*) AS count,
  sum(CAST(util[2:-3] AS INTEGER))::DOUBLE / count(*) AS mean_util,
  sum(CAST(mem[2:-5] AS INTEGER))::DOUBLE / count(*) AS mean_mem,
  max(temp) AS max_temp`;

// Both were measured (bench/README.md); the hour from the text is the default.
const kQueries = {
  // Timestamp parsed by the reader, grouped on the hour it falls in.
  timestamp: `
    SELECT trim(uuid) AS gpu, epoch_us(hour) // 3600000000 AS hour, count, mean_util, mean_mem, max_temp
    FROM (SELECT uuid, date_trunc('hour', ts) AS hour, ${sums}
          FROM read_csv(${sqlString(file)}, ${csvOptions('TIMESTAMP')})
          GROUP BY uuid, hour)`,
  // Timestamp kept as text, grouped on its first 13 characters ('2024/04/29 00'), turned into
  // hours since 1970 once per group. Faster than grouping on (date, hour) substrings or on a
  // per-row integer hour.
  text: `
    SELECT trim(uuid) AS gpu, epoch(strptime(day_hour, '%Y/%m/%d %H'))::BIGINT // 3600 AS hour,
           count, mean_util, mean_mem, max_temp
    FROM (SELECT uuid, ts[1:13] AS day_hour, ${sums}
          FROM read_csv(${sqlString(file)}, ${csvOptions('VARCHAR')})
          GROUP BY uuid, day_hour)`,
};

async function main() {
  if (!kQueries[variant]) throw new Error(`unknown query ${variant}: ${Object.keys(kQueries).join(', ')}`);
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run('SET threads=2');
  const start = process.hrtime.bigint();
  await con.run(`CREATE TEMP TABLE agg AS ${kQueries[variant]}`);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await con.run(`COPY (SELECT gpu, hour, count, printf('%.6f', mean_util) AS mean_util,
                              printf('%.6f', mean_mem) AS mean_mem, max_temp
                       FROM agg ORDER BY gpu, hour)
                 TO ${sqlString(out)} (HEADER, DELIMITER ',', QUOTE '')`);
  const rows = (await con.runAndReadAll('SELECT count(*) FROM agg')).getRows()[0][0];
  console.log(`seconds: ${seconds.toFixed(4)}\nrows: ${rows}`);
}

main().catch((e) => {
  console.error(`usage_duckdb.js: ${e.message}`);
  process.exit(1);
});
