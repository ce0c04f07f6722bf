// Package strict decodes a manifest's object into its Go type the way
// the API server's strict field validation reads it (API-10): the fields
// the type does not have, a value of the wrong type at its full field
// path, and the field that was probably meant.
package strict

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Convert fills into from u and returns the fields u has and the type does
// not (API-10); the object is filled in all the same, so the other rules
// still check it. The converter's type errors do not say where the bad
// value is, so on failure the object is decoded once more with
// encoding/json, whose errors carry the field path.
func Convert(u *unstructured.Unstructured, into any) (unknown []string, err error) {
	err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
	if err != nil {
		if fieldErr := typeErrorAt(u, into); fieldErr != nil {
			return nil, fieldErr
		}
		return nil, err
	}
	// A walk over the keys against cached field sets costs a fraction of
	// the converter's own validation, which tracks a path for every field:
	// lint ran 30 % slower with it.
	unknown = unknownFields(u.Object, reflect.TypeOf(into), nil, nil)
	slices.Sort(unknown)
	return unknown, nil
}

// unknownFields appends the paths of the keys of v that type t does not
// have, in the API server's notation (spec.containers[0].ports[0].env).
// The path is kept as steps and only printed for an unknown key: lint
// visits every field of every object, and nearly all are known.
func unknownFields(v any, t reflect.Type, at []step, out []string) []string {
	info := typeInfoOf(t)
	if info.leaf {
		return out
	}
	switch v := v.(type) {
	case map[string]any:
		if info.elem != nil { // a map of objects
			for k, item := range v {
				out = unknownFields(item, info.elem, append(at, step{key: k, mapKey: true}), out)
			}
			return out
		}
		for k, item := range v {
			ft, ok := info.fields[k]
			if !ok {
				out = append(out, render(append(at, step{key: k})))
				continue
			}
			out = unknownFields(item, ft, append(at, step{key: k}), out)
		}
	case []any:
		for i, item := range v {
			out = unknownFields(item, t, append(at, step{index: i, item: true}), out)
		}
	}
	return out
}

// step is one step of a field path: a field, a list index or a map key.
type step struct {
	key          string
	index        int
	item, mapKey bool
}

func render(at []step) string {
	var b strings.Builder
	for _, s := range at {
		switch {
		case s.item:
			fmt.Fprintf(&b, "[%d]", s.index)
		case s.mapKey:
			b.WriteString("[" + s.key + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// typeInfo is what the walk needs of a Go type, computed once per type.
type typeInfo struct {
	// leaf: the type decodes itself (IntOrString, Quantity, Time,
	// RawExtension) or holds no fields (strings, numbers, maps of them).
	leaf   bool
	fields map[string]reflect.Type // a struct's fields by JSON name
	elem   reflect.Type            // a map's value type, when it is an object
}

var typeInfos sync.Map // reflect.Type → *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if info, ok := typeInfos.Load(t); ok {
		return info.(*typeInfo)
	}
	info := &typeInfo{leaf: true}
	e := elem(t)
	custom := reflect.PointerTo(e).Implements(jsonUnmarshaler) || reflect.PointerTo(e).Implements(unstructuredUnmarshaler)
	switch {
	case custom:
	case e.Kind() == reflect.Struct:
		info.leaf, info.fields = false, jsonFields(e)
	case e.Kind() == reflect.Map && !typeInfoOf(e.Elem()).leaf:
		info.leaf, info.elem = false, e.Elem()
	}
	typeInfos.Store(t, info)
	return info
}

var (
	jsonUnmarshaler         = reflect.TypeFor[json.Unmarshaler]()
	unstructuredUnmarshaler = reflect.TypeFor[runtime.Unstructured]()
)

// UnknownFieldFix suggests the field that was meant: a field of the same
// parent spelt almost alike, or a field of the grandparent the key was
// indented under.
func UnknownFieldFix(typ reflect.Type, path string) string {
	raw := strings.Split(path, ".")
	segs := pathSegments(path)
	n := len(segs)
	key := segs[n-1]
	parent := strings.Join(raw[:n-1], ".")
	if t := typeAt(typ, segs[:n-1]); t != nil {
		if name, ok := closeField(t, key); ok {
			return fmt.Sprintf("rename %q to %q", key, name)
		}
	}
	if n >= 2 {
		if holdsField(typ, segs[:n-2], key) {
			outer := strings.Join(raw[:n-2], ".")
			if outer == "" {
				outer = "the object"
			}
			return fmt.Sprintf("move %q out of %s: it is a field of %s (indented one level too deep?)", key, parent, outer)
		}
	}
	if parent == "" {
		return fmt.Sprintf("remove %q; the object has no such field", key)
	}
	return fmt.Sprintf("remove %q or move it where it belongs; %s has no such field", key, parent)
}

// closeField is the field of t whose name differs from key only in case
// or, for longer keys, by a letter or two (replica → replicas); short keys
// are too close to too many names for a guess.
func closeField(t reflect.Type, key string) (string, bool) {
	limit := 0
	switch {
	case len(key) >= 8:
		limit = 2
	case len(key) >= 5:
		limit = 1
	}
	best, bestDist := "", limit+1
	for name := range jsonFields(t) {
		if d := editDistance(strings.ToLower(name), strings.ToLower(key)); d < bestDist || (d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	return best, best != ""
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// pathSegments splits a field path into field names, dropping list
// indices: spec.containers[0].ports[1].env → spec, containers, ports, env.
func pathSegments(path string) []string {
	var segs []string
	for _, s := range strings.Split(path, ".") {
		if i := strings.IndexByte(s, '['); i >= 0 {
			s = s[:i]
		}
		segs = append(segs, s)
	}
	return segs
}

// typeAt is the type at the JSON field names segs below t, or nil.
func typeAt(t reflect.Type, segs []string) reflect.Type {
	t = elem(t)
	for _, s := range segs {
		f, ok := jsonFields(t)[s]
		if !ok {
			return nil
		}
		t = elem(f)
	}
	return t
}

// holdsField reports whether the type at segs below t has a field whose
// JSON name is name: where a misplaced key belongs.
func holdsField(t reflect.Type, segs []string, name string) bool {
	holder := typeAt(t, segs)
	if holder == nil {
		return false
	}
	_, ok := jsonFields(holder)[name]
	return ok
}
