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

// Writes counted: a data file (data/…) written twice by this writer would be
// a rebased append uploading its data again; the soak checks there is none.
const writes = new Map();
const counted = (st) => {
  const note = (k) => writes.set(k, (writes.get(k) ?? 0) + 1);
  return {
    location: st.location,
    get: (k, o) => st.get(k, o),
    getRange: (k, off, n) => st.getRange(k, off, n),
    put: (k, d) => (note(k), st.put(k, d)),
    putIfAbsent: (k, d) => (note(k), st.putIfAbsent(k, d)),
    delete: (ks) => st.delete(ks),
    list: (p) => st.list(p),
  };
};
const repeatedData = () => [...writes].filter(([k, n]) => n > 1 && k.startsWith("data/")).map(([k]) => k);

const table = await openTable(counted(storeOf(tableArg)));
for (let b = 0; b < Number(batches); b++) {
  const rows = [];
  for (let i = 0; i < Number(rowsPer); i++) {
    const n = b * Number(rowsPer) + i;
    rows.push({ ts: new Date(Number(startMs) + n * 1000), host, v: BigInt(n * 7 + 1) });
  }
  const r = await table.append(rows);
  console.log(JSON.stringify({ batch: b, version: r.version, retries: r.retries, rows: r.rowsWritten, repeatedDataUploads: repeatedData() }));
}
