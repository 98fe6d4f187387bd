package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// append --evolve: the input's columns the table lacks are added, optional,
// in the commit of the file's first batch. Their types come from the input
// where it has them (Parquet, Arrow) and from --column NAME:TYPE for CSV
// and NDJSON (else string; an NDJSON number is a double, true/false a
// boolean).

// parseColumnTypes reads the --column NAME:TYPE[?] flags of append.
func parseColumnTypes(specs []string) (map[string]schema.Type, error) {
	out := map[string]schema.Type{}
	for _, s := range specs {
		i := strings.LastIndexByte(s, ':')
		if i <= 0 {
			return nil, usageErr("--column %q: want NAME:TYPE", s)
		}
		t, err := schema.ParseType(strings.TrimSuffix(s[i+1:], "?"))
		if err != nil {
			return nil, usageErr("--column %q: %v", s, err)
		}
		out[s[:i]] = t
	}
	return out, nil
}

// textColumns are the columns of a CSV header or of an NDJSON file's first
// object, peeked from br without consuming it.
func textColumns(format string, br *bufio.Reader, declared map[string]schema.Type) ([]evolve.Column, error) {
	line, err := peekLine(br)
	if err != nil {
		return nil, err
	}
	var cols []evolve.Column
	typed := func(name string, guess schema.Type) {
		if t, ok := declared[name]; ok {
			guess = t
		}
		cols = append(cols, evolve.Column{Name: name, Type: guess})
	}
	if format == "csv" {
		names, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil {
			return nil, &rows.Error{Code: rows.CodeSyntax, Line: 1, Msg: "CSV header: " + err.Error()}
		}
		for _, n := range names {
			typed(strings.TrimPrefix(n, "\ufeff"), schema.String)
		}
		return cols, nil
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, &rows.Error{Code: rows.CodeSyntax, Line: 1, Msg: "want a JSON object"}
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, &rows.Error{Code: rows.CodeSyntax, Line: 1, Msg: err.Error()}
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &rows.Error{Code: rows.CodeSyntax, Line: 1, Msg: err.Error()}
		}
		guess := schema.String
		switch v.(type) {
		case json.Number:
			guess = schema.Double
		case bool:
			guess = schema.Boolean
		}
		typed(k.(string), guess)
	}
	return cols, nil
}

// peekLine is the first line of br (a header or an object), unconsumed.
func peekLine(br *bufio.Reader) ([]byte, error) {
	for n := 4096; ; n *= 2 {
		b, err := br.Peek(min(n, br.Size()))
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[:i], nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || err == nil && n >= br.Size():
			return nil, &rows.Error{Code: rows.CodeSyntax, Line: 1, Msg: fmt.Sprintf("the first line is longer than %d bytes", br.Size())}
		case err != nil: // the whole input is one line
			return b, nil
		}
	}
}

// binaryColumns are the columns of a Parquet or Arrow input, with their types.
func binaryColumns(format string, data []byte) ([]evolve.Column, error) {
	if format == "arrow" {
		return arrowipc.Columns(data)
	}
	f, err := parquet.Open(data)
	if err != nil {
		return nil, &rows.Error{Code: rows.CodeSyntax, Msg: err.Error()}
	}
	return parquetColumns(f), nil
}
