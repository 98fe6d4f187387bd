package partition

// Field is one partition field of a spec, as Iceberg's metadata holds it:
// the source column's field id, the partition field's own id (1000 and up by
// convention; it names the field in manifests' partition structs, so it is
// never reused for another field), its name and its transform.
type Field struct {
	SourceID  int
	FieldID   int
	Name      string
	Transform Transform
}

// Spec is a partition spec: an id (the default spec of a new table is 0)
// and its fields, in the order of the partition tuple.
type Spec struct {
	ID     int
	Fields []Field
}

// Unpartitioned reports whether s puts every row in one partition: it has no
// fields, or only void ones (a v1 table drops a field by making it void, and
// a void field's value is always null).
func (s Spec) Unpartitioned() bool {
	for _, f := range s.Fields {
		if f.Transform.Kind != Void {
			return false
		}
	}
	return true
}
