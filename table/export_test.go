package table

// SetMergeReadBudget sets the compressed bytes a merge may hold ahead of its
// windows, for a test of the range reads; it returns the restoring function.
func SetMergeReadBudget(n int64) (restore func()) {
	old := mergeReadBudget
	mergeReadBudget = n
	return func() { mergeReadBudget = old }
}
