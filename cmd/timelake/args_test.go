package main

import (
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	spec := flagSpec{"format": true, "json": false, "column": true}
	tests := []struct {
		argv      []string
		wantPos   []string
		wantFlags map[string][]string
		wantBools map[string]bool
		wantErr   string
	}{
		{argv: []string{"t", "--format", "csv", "a.csv", "--json"}, wantPos: []string{"t", "a.csv"},
			wantFlags: map[string][]string{"format": {"csv"}}, wantBools: map[string]bool{"json": true}},
		{argv: []string{"--column=a:long", "t", "--column", "b:double?", "-"}, wantPos: []string{"t", "-"},
			wantFlags: map[string][]string{"column": {"a:long", "b:double?"}}, wantBools: map[string]bool{}},
		{argv: []string{"t", "--", "--json"}, wantPos: []string{"t", "--json"}, wantFlags: map[string][]string{}, wantBools: map[string]bool{}},
		{argv: []string{"--nope"}, wantErr: "unknown flag --nope"},
		{argv: []string{"-x"}, wantErr: "unknown flag -x (flags are spelled --name)"},
		{argv: []string{"--format"}, wantErr: "flag --format needs a value"},
		{argv: []string{"--json=1"}, wantErr: "flag --json takes no value"},
	}
	for _, tc := range tests {
		a, err := parseArgs(tc.argv, spec)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("parseArgs(%q) error = %v, want %q", tc.argv, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tc.argv, err)
			continue
		}
		if !reflect.DeepEqual(a.pos, tc.wantPos) || !reflect.DeepEqual(a.flags, tc.wantFlags) || !reflect.DeepEqual(a.bools, tc.wantBools) {
			t.Errorf("parseArgs(%q) = %q %v %v, want %q %v %v", tc.argv, a.pos, a.flags, a.bools, tc.wantPos, tc.wantFlags, tc.wantBools)
		}
	}
}
