package table

// rowGroupRows closes every row group Timelake writes (appends,
// compactions, rewrites) at the first page boundary at or past this many
// rows, whatever the byte limit: a reader plans, fetches and decodes a row
// group's column chunks at a time, and time-series columns compress so
// well that the byte limit alone let a compacted day of 1.2M rows into one
// row group, whose chunks lie far apart (see docs/decisions/scan.md).
var rowGroupRows int64 = 122_880
