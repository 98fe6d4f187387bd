package iceberg

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestNestedKeyRefused: a table whose series column (by the timelake.*
// properties) is a map is refused with ErrUnsupportedType, naming it.
func TestNestedKeyRefused(t *testing.T) {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, 1, nil)
	m.Schemas[0].Fields = append(m.Schemas[0].Fields, SchemaField{ID: 90, Name: "tags", Type: json.RawMessage(`{"type":"map","key-id":91,"key":"string","value-id":92,"value":"string","value-required":false}`)})
	m.LastColumnID = 92
	m.Properties[PropSeriesColumns] = "tags"
	_, err := TableFromMetadata(m)
	if !errors.Is(err, ErrUnsupportedType) || !strings.Contains(err.Error(), `series column "tags" is of nested type map<string, string>`) {
		t.Errorf("err = %v, want ErrUnsupportedType naming the series column tags", err)
	}
}
