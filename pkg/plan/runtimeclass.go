package plan

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/addons"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// RuntimeClasses are PLAN-6's RuntimeClasses, one per Windows build of the
// plan's nodes: the runtime's handler, a nodeSelector on os, arch and
// windows-build (SCH-1) and a toleration for the Windows taint (SCH-3).
func (p *Plan) RuntimeClasses() []*nodev1.RuntimeClass {
	var out []*nodev1.RuntimeClass
	seen := map[string]bool{}
	for _, n := range p.WindowsNodes {
		if seen[n.Build] {
			continue
		}
		seen[n.Build] = true
		b, _ := n.pool.WindowsBuild()
		r, _ := windows.ReleaseByBuild(b.Build)
		handler := windows.RuntimeHandlers(n.pool.Runtime, v1alpha1.OSWindows)[0] // KLT-11
		out = append(out, &nodev1.RuntimeClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
			ObjectMeta: metav1.ObjectMeta{Name: "windows-" + strings.ToLower(r.Name())},
			Handler:    handler,
			Scheduling: &nodev1.Scheduling{
				NodeSelector: kubelet.NodeLabels(v1alpha1.OSWindows, "amd64", b, p.Minor, false),
				Tolerations:  []corev1.Toleration{windows.WindowsToleration()},
			},
		})
	}
	return out
}

func (p *Plan) runtimeClassFiles() ([]File, error) {
	var objs []addons.Object
	var names []string
	for _, rc := range p.RuntimeClasses() {
		objs = append(objs, rc)
		names = append(names, rc.Name)
	}
	if len(objs) == 0 {
		return nil, nil
	}
	m, err := manifest(header("#", "PLAN-6, SCH-1, SCH-3",
		"One RuntimeClass per Windows build: pods set runtimeClassName ("+strings.Join(names, ", ")+")",
		"and land on nodes of that build, tolerating the Windows taint.",
		"Apply once per cluster: kubectl apply -f runtimeclasses.yaml"), objs)
	if err != nil {
		return nil, fmt.Errorf("runtimeclasses.yaml: %w", err)
	}
	return []File{{Path: "runtimeclasses.yaml", Content: m}}, nil
}
