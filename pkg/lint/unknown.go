package lint

import (
	"fmt"

	"github.com/winkube/winkube/pkg/lint/strict"
)

// reportUnknownFields reports each field of o its type does not have, at
// the field's line. Since Kubernetes 1.27 the API server validates fields
// strictly when kubectl asks, and kubectl asks by default, so apply stops
// with the API server's words; the usual cause is a key indented at the
// wrong level or spelt with the wrong case.
func (r *run) reportUnknownFields(o *object) {
	for _, path := range o.unknown {
		msg := fmt.Sprintf("unknown field; kubectl apply fails with: strict decoding error: unknown field %q", path)
		r.report(o, "API-10", "", path, msg, strict.UnknownFieldFix(o.typ, path))
	}
}
