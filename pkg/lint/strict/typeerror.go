package strict

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FieldTypeError is a value of the wrong type at a field path, e.g.
// spec.template.spec.nodeSelector.tolerations.
type FieldTypeError struct {
	Path string
	Msg  string
}

func (e *FieldTypeError) Error() string { return e.Path + ": " + e.Msg }

// typeErrorAt names the field whose value has the wrong type, or returns
// nil. encoding/json reports the field without list indices and stops at a
// map ("nodeSelector" when a key under it holds a list), so the path is
// completed from the object itself: the user must see the key to change.
func typeErrorAt(u *unstructured.Unstructured, into any) error {
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil
	}
	t := reflect.TypeOf(into).Elem()
	fresh := reflect.New(t).Interface()
	var typeErr *json.UnmarshalTypeError
	if !errors.As(json.Unmarshal(data, fresh), &typeErr) || typeErr.Field == "" {
		return nil
	}
	segs := strings.Split(typeErr.Field, ".")
	got, want := article(typeErr.Value), kindName(typeErr.Type)
	path, key, ok := badValuePath(u.Object, segs, typeErr.Value, "")
	if !ok {
		return &FieldTypeError{Path: typeErr.Field, Msg: fmt.Sprintf("got %s, want %s", got, want)}
	}
	msg := fmt.Sprintf("got %s, want %s", got, want)
	if key != "" && holdsField(t, segs[:len(segs)-1], key) {
		// A key that is a field of the map's parent was almost certainly
		// meant to sit beside the map, not inside it.
		parent := path[:len(path)-len(key)-1]
		parent = parent[:strings.LastIndexAny(parent, ".[")+1]
		msg += fmt.Sprintf("; is %q indented one level too deep? It is a field of %s, not a key of %s",
			key, strings.TrimSuffix(parent, "."), segs[len(segs)-1])
	}
	return &FieldTypeError{Path: path, Msg: msg}
}

// badValuePath walks v along the JSON field names segs, trying every
// element of the lists on the way, to the first value whose JSON kind is
// got. It returns the full path (with indices and map keys) and, when the
// bad value is an entry of a map, that entry's key.
func badValuePath(v any, segs []string, got, prefix string) (path, key string, ok bool) {
	if list, isList := v.([]any); isList {
		for i, e := range list {
			if p, k, ok := badValuePath(e, segs, got, fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return p, k, true
			}
		}
		return "", "", false
	}
	m, isMap := v.(map[string]any)
	if len(segs) > 0 {
		if !isMap {
			return "", "", false
		}
		child, found := m[segs[0]]
		if !found {
			return "", "", false
		}
		return badValuePath(child, segs[1:], got, joinField(prefix, segs[0]))
	}
	if jsonKind(v) == got {
		return prefix, "", true
	}
	if isMap {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if jsonKind(m[k]) == got {
				return mapKeyPath(prefix, k), k, true
			}
		}
	}
	return "", "", false
}

func joinField(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// mapKeyPath appends a map key as field.Path prints it: ".key" for plain
// names, "[kubernetes.io/os]" for keys with dots or slashes.
func mapKeyPath(prefix, key string) string {
	if strings.ContainsAny(key, "./[] ") || key == "" {
		return prefix + "[" + key + "]"
	}
	return joinField(prefix, key)
}

// jsonKind names a decoded JSON value the way json.UnmarshalTypeError does.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "number"
}

// elem strips pointers and slices down to the type the JSON object maps to.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// jsonFields maps the JSON names of a struct's fields, inlined embedded
// structs included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case name == "" && f.Anonymous:
			for k, v := range jsonFields(elem(f.Type)) {
				out[k] = v
			}
		case name != "":
			out[name] = f.Type
		}
	}
	return out
}

// kindName says what JSON a Go type expects, in a user's words.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Pointer:
		return kindName(t.Elem())
	}
	return "a number"
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return "a " + jsonKind
}
