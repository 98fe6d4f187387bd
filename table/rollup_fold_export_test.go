package table

// ForgetAppend drops the rows tb keeps from its last append, so that its
// next rollup refresh recomputes (for a benchmark of both paths).
func ForgetAppend(tb *Table) { tb.lastAppend = nil }
