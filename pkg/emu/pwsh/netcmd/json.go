package netcmd

import (
	"bytes"
	"encoding/json"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// fromJSON is what Invoke-RestMethod makes of a JSON body, as
// ConvertFrom-Json does: objects are PSCustomObjects with their
// properties in order, arrays are arrays, integers Int32 (Int64 past
// it), other numbers Double.
func fromJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := jsonValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, &json.SyntaxError{Offset: d.InputOffset()}
	}
	return v, nil
}

func jsonValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		if x == '[' {
			list := []any{}
			for d.More() {
				v, err := jsonValue(d)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := d.Token()
			return list, err
		}
		o := values.NewObject("System.Management.Automation.PSCustomObject")
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := jsonValue(d)
			if err != nil {
				return nil, err
			}
			o.Set(k.(string), v)
		}
		_, err := d.Token()
		return o, err
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n), nil
		}
		f, err := x.Float64()
		return f, err
	}
	return t, nil // string, bool, nil
}
