// One soak writer in Node: the WebAssembly client appends batches to a
// directory table through localStore, and prints one JSON line per batch.
// usage: node nodewriter.mjs CLIENT_ENTRY DIR HOST BATCHES ROWS START_MS
const [entry, dir, host, batches, rowsPer, startMs] = process.argv.slice(2);
const { openTable, localStore } = await import(entry);
const table = await openTable(localStore(dir));
for (let b = 0; b < Number(batches); b++) {
  const rows = [];
  for (let i = 0; i < Number(rowsPer); i++) {
    const n = b * Number(rowsPer) + i;
    rows.push({ ts: new Date(Number(startMs) + n * 1000), host, v: BigInt(n * 7 + 1) });
  }
  const r = await table.append(rows);
  console.log(JSON.stringify({ batch: b, version: r.version, retries: r.retries, rows: r.rowsWritten }));
}
