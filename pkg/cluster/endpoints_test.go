package cluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Endpoints belong to the endpoints controller: winkube writes none, and
// the ones the controller writes name it as their manager.
func TestEndpointsAreTheControllers(t *testing.T) {
	cfg := sharedControlPlane(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ep-owner"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "ep-owner"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := cs.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var ep *corev1.Endpoints
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var err error
		if ep, err = cs.CoreV1().Endpoints("default").Get(ctx, "ep-owner", metav1.GetOptions{}); err == nil {
			break
		}
	}
	if ep == nil {
		t.Fatal("the endpoints controller wrote no Endpoints")
	}
	for _, m := range ep.ManagedFields {
		if m.Manager != "kube-controller-manager" {
			t.Errorf("Endpoints field manager %q, want kube-controller-manager only", m.Manager)
		}
	}
}
