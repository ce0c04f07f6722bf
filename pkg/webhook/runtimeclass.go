package webhook

import (
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// handlerFinding is KLT-11 for a template whose RuntimeClass names a
// handler the runtime of the nodes its pods can land on has no runtime
// for: their sandboxes fail there, as lint says of the RuntimeClass. An
// unknown class is left to the API server's RuntimeClass admission, and
// a webhook without the cluster's nodes judges nothing.
func (h *Handler) handlerFinding(t *template) *rules.Finding {
	name := t.spec.RuntimeClassName
	if name == nil || *name == "" {
		return nil
	}
	rc := h.cluster.runtimeClass(*name)
	if rc == nil {
		return nil
	}
	s := h.scheduling(t.pod)
	nodes := selectedNodes(&s.spec, h.cluster.nodeList())
	hosts := make([]windows.Host, len(nodes))
	for i, n := range nodes {
		hosts[i] = n.Host
	}
	msg, fix, some, ok := windows.HandlerRefusal(hosts, rc.Name, rc.Handler)
	if !ok {
		return nil
	}
	kase := ""
	if some {
		kase = "some-nodes"
	}
	f := rules.New("KLT-11", kase, t.path.Child("runtimeClassName").String()+": "+msg).WithFix(fix)
	return &f
}
