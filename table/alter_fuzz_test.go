package table_test

import (
	"encoding/json"
	"testing"

	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// FuzzUpdateNameMapping: a table's schema.name-mapping.default (bytes
// another engine wrote) never panics an alter; what it returns is JSON
// that maps every column of the new schema by its name.
func FuzzUpdateNameMapping(f *testing.F) {
	for _, s := range []string{
		`[{"field-id":1,"names":["ts"]},{"field-id":2,"names":["host"]},{"field-id":4,"names":["cpu","c"]}]`,
		`[{"field-id":1,"names":["ts"],"fields":[{"field-id":9,"names":["x"]}]}]`,
		`[]`, `{}`, `[{"field-id":"2","names":"host"}]`, `[{"names":[1,2]}]`, `null`,
	} {
		f.Add(s)
	}
	old, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		f.Fatal(err)
	}
	next, _, err := evolve.Apply(old, 4, []evolve.Change{{Op: evolve.Rename, Column: "cpu", To: "load"}, {Op: evolve.Add, Column: "disk", Type: schema.Long}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := table.UpdateNameMapping(raw, old, next)
		if err != nil {
			return
		}
		var m []struct {
			ID    json.Number `json:"field-id"`
			Names []any       `json:"names"`
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%q → %q: not a mapping: %v", raw, out, err)
		}
		found := false
		for _, e := range m {
			for _, n := range e.Names {
				if n == "disk" && e.ID.String() == "5" {
					found = true
				}
			}
		}
		if !found {
			t.Fatalf("%q → %q: the added column disk (id 5) is not mapped", raw, out)
		}
	})
}
