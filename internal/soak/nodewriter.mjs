// One soak writer in Node: the WebAssembly client appends batches to a table
// and prints one JSON line per batch. TABLE is a directory (localStore) or
// s3://bucket/prefix (s3Store, with the server and keys of the AWS variables
// that scripts/s3server.sh exports).
// usage: node nodewriter.mjs CLIENT_ENTRY TABLE HOST BATCHES ROWS START_MS
const [entry, tableArg, host, batches, rowsPer, startMs] = process.argv.slice(2);
const { openTable, localStore, s3Store } = await import(entry);

function storeOf(arg) {
  if (!arg.startsWith("s3://")) return localStore(arg);
  const [bucket, ...rest] = arg.slice("s3://".length).split("/");
  const e = process.env;
  return s3Store({
    bucket,
    prefix: rest.join("/"),
    endpoint: e.AWS_ENDPOINT_URL,
    region: e.AWS_REGION ?? "us-east-1",
    credentials: { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY },
  });
}

const table = await openTable(storeOf(tableArg));
for (let b = 0; b < Number(batches); b++) {
  const rows = [];
  for (let i = 0; i < Number(rowsPer); i++) {
    const n = b * Number(rowsPer) + i;
    rows.push({ ts: new Date(Number(startMs) + n * 1000), host, v: BigInt(n * 7 + 1) });
  }
  const r = await table.append(rows);
  console.log(JSON.stringify({ batch: b, version: r.version, retries: r.retries, rows: r.rowsWritten }));
}
