// Package datafile reads a table's Parquet data files, position delete
// files and deletion vectors through a Store, a piece at a time: whatever
// wrote them (Timelake, Spark, pyiceberg, DuckDB), however they are laid
// out (sorted or not, with or without a page index, v1 or v2 pages, any
// codec Timelake decodes).
// Scans, compaction, the index catch-up, info and the rollup refresh all
// read rows through it; package table decides which files to read and what
// to do with the rows.
//
// A read of one file, and what each step costs in requests:
//
//	File (Open)            the tail: 1 request (the footer, and all of a file up to 64 KiB)
//	  └ offset indexes     0 or 1 request: the writer puts them together
//	Cursor (NewCursor)     a window of rows at a time, in file (key) order
//	  └ pages              per row group: the chunks whole when they fit the
//	                       read budget, else the window's pages and those after
//	                       them up to the budget, one request a column
//	FileScan (NewFileScan) a Cursor's ranges pruned by a scan.Filter: row groups
//	                       by statistics, pages by the column index, then rows
//	Deleted                a file's deleted positions (PositionDeletes: position
//	                       delete files, or its deletion vector read by range),
//	                       skipped as the rows pass
//
// A file that does not say it is sorted by (series…, time) (another engine's)
// is read whole and sorted in memory (File.ReadSorted), within MaxSortBytes;
// past it, SortTooLargeError says how much it needs.
//
//	f, err := datafile.Open(ctx, st, key, size, sch, names, &bytesRead)
//	cur := datafile.NewCursor(f, sch, &dec, seq, 8192, readBudget)
//	for {
//		ok, err := cur.Next(ctx)
//		if err != nil || !ok {
//			break
//		}
//		// cur.Cols[c] holds rows [cur.Pos, cur.N) of the window
//	}
//
// Errors name the file: a file that cannot be read is ErrCorrupt (package
// table's ErrCorruptTable), a feature Timelake does not read is
// iceberg.ErrUnsupported. The package imports the formats and store, never
// table, and does no I/O but through the Store it is given.
package datafile
