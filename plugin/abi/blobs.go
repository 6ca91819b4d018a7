package abi

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// BlobMin is the smallest string ExportHandleFD sends as a blob; shorter
// ones stay in the JSON, where escaping them costs less than a blob's
// bookkeeping.
const BlobMin = 4 << 10

// blobFields are the strings of a HandleResponse that can travel as blobs,
// in the order they are taken out and put back.
func blobFields(r *HandleResponse, each func(field string, s *string)) {
	each("stdout", &r.Stdout)
	if r.Unstored != nil {
		each("unstored.stdout", &r.Unstored.Stdout)
	}
	for i := range r.Effects {
		e := &r.Effects[i]
		p := "effects." + strconv.Itoa(i) + "."
		if e.Event != nil {
			each(p+"event.args", &e.Event.Args)
			each(p+"event.response", &e.Event.Response)
			each(p+"event.text", &e.Event.Text)
		}
		if e.Chunk != nil {
			each(p+"chunk.text", &e.Chunk.Text)
		}
		each(p+"value", &e.Value)
	}
}

// DetachBlobs moves every string of r of at least BlobMin bytes out of it
// and into r.Blobs, and returns them in order: the guest writes them,
// raw, after the rest of r (ExportHandleFD). r's strings are left empty.
func DetachBlobs(r *HandleResponse) []string {
	var out []string
	blobFields(r, func(field string, s *string) {
		if len(*s) >= BlobMin {
			r.Blobs = append(r.Blobs, Blob{Field: field, Bytes: len(*s)})
			out = append(out, *s)
			*s = ""
		}
	})
	return out
}

// AttachBlobs puts the blobs r.Blobs names back into r, taking their bytes
// in order from data (what the guest wrote on its standard output), and
// clears r.Blobs. The strings share data's memory: data must not change
// afterwards. It fails when data does not hold exactly the blobs named.
func AttachBlobs(r *HandleResponse, data []byte) error {
	if len(r.Blobs) == 0 {
		if len(data) != 0 {
			return fmt.Errorf("abi: %d bytes of output name no blob", len(data))
		}
		return nil
	}
	want := map[string]int{}
	for i, b := range r.Blobs {
		if _, dup := want[b.Field]; dup || b.Bytes < 0 {
			return fmt.Errorf("abi: blob %d (%s) named twice or negative", i, b.Field)
		}
		want[b.Field] = i
	}
	offsets := make([]int, len(r.Blobs)+1)
	for i, b := range r.Blobs {
		offsets[i+1] = offsets[i] + b.Bytes
		if offsets[i+1] > len(data) {
			return fmt.Errorf("abi: blob %s needs %d bytes, output has %d", b.Field, b.Bytes, len(data)-offsets[i])
		}
	}
	if offsets[len(r.Blobs)] != len(data) {
		return fmt.Errorf("abi: %d bytes of output after the last blob", len(data)-offsets[len(r.Blobs)])
	}
	found := 0
	blobFields(r, func(field string, s *string) {
		i, ok := want[field]
		if !ok {
			return
		}
		found++
		if n := r.Blobs[i].Bytes; n > 0 {
			*s = unsafe.String(&data[offsets[i]], n)
		}
	})
	if found != len(r.Blobs) {
		var names []string
		for _, b := range r.Blobs {
			names = append(names, b.Field)
		}
		return fmt.Errorf("abi: blobs name fields the answer lacks: %s", strings.Join(names, ", "))
	}
	r.Blobs = nil
	return nil
}
