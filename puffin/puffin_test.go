package puffin

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		blobs []Blob
		props map[string]string
	}{
		{"none", nil, nil},
		{"one", []Blob{{BlobMetadata{Type: "t-v1", Fields: []int{1, 2}, SnapshotID: 7, SequenceNumber: 3}, []byte("PAR1xyzPAR1")}}, map[string]string{"created-by": "test"}},
		{"two and empty", []Blob{
			{BlobMetadata{Type: "a", SnapshotID: 1, Properties: map[string]string{"k": "v"}}, []byte("aaa")},
			{BlobMetadata{Type: "b", SnapshotID: 2}, nil},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, wrote, err := Write(tc.blobs, tc.props)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, wrote) {
				t.Fatalf("read %+v, wrote %+v", got, wrote)
			}
			if len(got.Blobs) != len(tc.blobs) {
				t.Fatalf("got %d blobs, want %d", len(got.Blobs), len(tc.blobs))
			}
			for i, b := range tc.blobs {
				d, err := got.BlobData(data, i)
				if err != nil || !bytes.Equal(d, b.Data) {
					t.Fatalf("blob %d = %q, %v; want %q", i, d, err, b.Data)
				}
				if got.Find(b.Type) != i {
					t.Fatalf("Find(%q) = %d, want %d", b.Type, got.Find(b.Type), i)
				}
			}
			if got.FooterSize+int64(4) > int64(len(data)) {
				t.Fatalf("footer size %d in a file of %d", got.FooterSize, len(data))
			}
			if string(data[int64(len(data))-got.FooterSize:][:4]) != Magic {
				t.Fatalf("no magic at the footer size from the end")
			}
		})
	}
}

// TestSpecExample reads a file laid out by hand as the spec describes it.
func TestSpecExample(t *testing.T) {
	payload := `{"blobs":[{"type":"apache-datasketches-theta-v1","fields":[1],"snapshot-id":5,"sequence-number":2,"offset":4,"length":3,"properties":{"ndv":"3"}}],"properties":{"created-by":"x"}}`
	var b bytes.Buffer
	b.WriteString("PFA1abcPFA1")
	b.WriteString(payload)
	b.Write([]byte{byte(len(payload)), byte(len(payload) >> 8), 0, 0, 0, 0, 0, 0})
	b.WriteString("PFA1")
	f, err := Read(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := BlobMetadata{Type: "apache-datasketches-theta-v1", Fields: []int{1}, SnapshotID: 5, SequenceNumber: 2, Offset: 4, Length: 3, Properties: map[string]string{"ndv": "3"}}
	if !reflect.DeepEqual(f.Blobs, []BlobMetadata{want}) || f.FooterSize != int64(len(payload))+16 {
		t.Fatalf("got %+v (footer %d)", f, f.FooterSize)
	}
	if d, _ := f.BlobData(b.Bytes(), 0); string(d) != "abc" {
		t.Fatalf("blob %q", d)
	}
}

func TestReadRefuses(t *testing.T) {
	good, _, _ := Write([]Blob{{BlobMetadata{Type: "x"}, []byte("data")}}, nil)
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"parquet", []byte("PAR1 some bytes that are not puffin at all PAR1")},
		{"no end magic", mut(func(b []byte) []byte { return b[:len(b)-1] })},
		{"compressed footer", mut(func(b []byte) []byte { b[len(b)-8] = 1; return b })},
		{"huge size", mut(func(b []byte) []byte { b[len(b)-10] = 0xff; return b })},
		{"blob outside", []byte(`PFA1PFA1{"blobs":[{"type":"x","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":9}]}` + "\x45\x00\x00\x00\x00\x00\x00\x00PFA1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Read(tc.data); !errors.Is(err, ErrFormat) {
				t.Fatalf("Read = %v, want ErrFormat", err)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	good, _, _ := Write([]Blob{{BlobMetadata{Type: "x", Fields: []int{1}}, []byte("data")}}, map[string]string{"a": "b"})
	f.Add(good)
	f.Add([]byte("PFA1PFA1{}\x02\x00\x00\x00\x00\x00\x00\x00PFA1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := Read(data)
		if err != nil {
			return
		}
		for i := range pf.Blobs {
			_, _ = pf.BlobData(data, i)
		}
	})
}
