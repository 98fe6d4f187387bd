package table

// UpdateNameMapping exposes updateNameMapping to the fuzz target.
var UpdateNameMapping = updateNameMapping
