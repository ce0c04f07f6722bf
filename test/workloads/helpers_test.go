package workloads

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/winkube/winkube/pkg/kubeapply"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/webhook"
)

// file is a corpus file's path in testdata.
func file(rel string) string { return filepath.Join(testdata, filepath.FromSlash(rel)) }

// loadFiles reads manifests with the loader `winkube up --apply` and `lint` use.
func loadFiles(t *testing.T, rels ...string) []manifest.Object {
	t.Helper()
	paths := make([]string, len(rels))
	for i, r := range rels {
		paths[i] = file(r)
	}
	objs, errs := manifest.Load(paths, manifest.Options{})
	for _, err := range errs {
		t.Fatalf("loading %v: %v", rels, err)
	}
	return objs
}

// apply applies the files unchanged, as `kubectl apply -f` does, and
// returns what was applied.
func (c *cluster) apply(t *testing.T, rels ...string) []manifest.Object {
	t.Helper()
	objs := loadFiles(t, rels...)
	if err := c.applyObjects(t, objs); err != nil {
		t.Fatalf("applying %v: %v", rels, err)
	}
	return objs
}

func (c *cluster) applyObjects(t *testing.T, objs []manifest.Object) error {
	in := make([]kubeapply.Object, len(objs))
	for i, o := range objs {
		in[i] = kubeapply.Object{Obj: o.Obj, File: o.File, Line: o.Line}
	}
	_, err := kubeapply.ApplyAll(ctx(t), c.cfg, in, nil)
	return err
}

// remove deletes the applied objects, as `kubectl delete -f` does, and
// waits until they and the pods of podSelector (if any) are gone, so that
// a row applying objects of the same names starts afresh.
func (c *cluster) remove(t *testing.T, objs []manifest.Object, podSelector string) {
	t.Helper()
	a, err := kubeapply.NewApplier(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	fg := metav1.DeletePropagationForeground
	for _, o := range objs {
		gvk := o.Obj.GroupVersionKind()
		m, err := a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		ns := o.Obj.GetNamespace()
		if ns == "" && m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns = metav1.NamespaceDefault
		}
		r := a.Dynamic.Resource(m.Resource).Namespace(ns)
		err = r.Delete(ctx(t), o.Obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &fg})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("deleting %s %s: %v", o.Obj.GetKind(), o.Obj.GetName(), err)
		}
		waitFor(t, o.Obj.GetKind()+" "+o.Obj.GetName()+" gone", func() (bool, string) {
			_, err := r.Get(ctx(t), o.Obj.GetName(), metav1.GetOptions{})
			return apierrors.IsNotFound(err), "present"
		})
	}
	if podSelector == "" {
		return
	}
	waitFor(t, "pods "+podSelector+" gone", func() (bool, string) {
		pods := c.pods(t, metav1.NamespaceDefault, podSelector)
		return len(pods) == 0, fmt.Sprintf("%d pods left", len(pods))
	})
}

// waitFor polls cond until it holds; the deadline is a hang guard, and
// the last state cond reported is the failure message.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitGuard)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: still %s after %s", what, state, waitGuard)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (c *cluster) pods(t *testing.T, ns, selector string) []corev1.Pod {
	t.Helper()
	list, err := c.cs.CoreV1().Pods(ns).List(ctx(t), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// settledPods waits until n pods match selector and every one is settled
// by settled, and returns them.
func (c *cluster) settledPods(t *testing.T, ns, selector string, n int, settled func(corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	waitFor(t, fmt.Sprintf("%d settled pods %s in %s", n, selector, ns), func() (bool, string) {
		pods = c.pods(t, ns, selector)
		states := make([]string, len(pods))
		done := len(pods) == n
		for i, p := range pods {
			states[i] = p.Name + "@" + p.Spec.NodeName + "=" + podState(p)
			done = done && settled(p)
		}
		return done, strings.Join(states, ", ")
	})
	return pods
}

// podState is what `kubectl get pods` prints in STATUS, roughly: the
// first waiting reason, else the phase.
func podState(p corev1.Pod) string {
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if s.State.Waiting != nil && s.State.Waiting.Reason != "" {
			return s.State.Waiting.Reason
		}
	}
	return string(p.Status.Phase)
}

func ready(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func pullFailed(p corev1.Pod) bool {
	s := podState(p)
	return s == "ErrImagePull" || s == "ImagePullBackOff"
}

// event waits for an event of the object with reason whose message holds
// want, and returns that message.
func (c *cluster) event(t *testing.T, ns, name, reason, want string) string {
	t.Helper()
	var got string
	waitFor(t, fmt.Sprintf("event %s %q of %s/%s", reason, want, ns, name), func() (bool, string) {
		list, err := c.cs.CoreV1().Events(ns).List(ctx(t), metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String()})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Reason == reason && strings.Contains(e.Message, want) {
				got = e.Message
				return true, ""
			}
			seen = append(seen, e.Reason+": "+e.Message)
		}
		return false, fmt.Sprintf("%q", seen)
	})
	return got
}

// logs reads a container's log through the apiserver, as kubectl logs.
func (c *cluster) logs(t *testing.T, ns, pod, container string) string {
	t.Helper()
	b, err := c.cs.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container}).DoRaw(ctx(t))
	if err != nil {
		t.Fatalf("logs of %s/%s %s: %v", ns, pod, container, err)
	}
	return string(b)
}

// exec runs cmd in a pod's container through the apiserver, as kubectl
// exec does, and returns its output.
func (c *cluster) exec(ns, pod, container string, cmd ...string) (string, error) {
	req := c.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true}, k8sscheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(c.cfg, http.MethodPost, req.URL())
	if err != nil {
		return "", err
	}
	// Two buffers: the streams are copied concurrently.
	var out, errOut bytes.Buffer
	cx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = ex.StreamWithContext(cx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut})
	return out.String() + errOut.String(), err
}

// curlImage is agnhost, whose Linux image adds curl to its Alpine base.
const curlImage = "registry.k8s.io/e2e-test-images/agnhost:2.53"

// curl runs curl in a Linux client pod of the test's own (the corpus's
// "from a Linux pod"), created once per cluster.
func (c *cluster) curl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	const name = "workloads-client"
	c.curlOnce.Do(func() {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
				Containers:   []corev1.Container{{Name: "client", Image: curlImage, Args: []string{"pause"}}},
			},
		}
		if _, c.curlErr = c.cs.CoreV1().Pods(metav1.NamespaceDefault).Create(ctx(t), pod, metav1.CreateOptions{}); c.curlErr != nil {
			return
		}
		waitFor(t, "the client pod Ready", func() (bool, string) {
			p, err := c.cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx(t), name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return ready(*p), podState(*p)
		})
	})
	if c.curlErr != nil {
		t.Fatalf("client pod: %v", c.curlErr)
	}
	return c.exec(metav1.NamespaceDefault, name, "client", append([]string{"curl", "-sS", "-m", "10"}, args...)...)
}

// lint runs `winkube lint` on corpus files against this cluster.
func (c *cluster) lint(t *testing.T, rels ...string) (string, int) {
	t.Helper()
	args := []string{"lint", "--kubeconfig", c.kubeconfig()}
	for _, r := range rels {
		args = append(args, file(r))
	}
	out, err := exec.Command(winkube, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("winkube lint: %v", err)
	}
	return string(out), code
}

// httpGet GETs url from the host; only LoadBalancer EXTERNAL-IPs, which
// winkube serves on the host's loopback, are asked this way.
func httpGet(url string) (string, error) {
	cl := &http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// loadBalancerIP waits for the Service's EXTERNAL-IP.
func (c *cluster) loadBalancerIP(t *testing.T, ns, name string) string {
	t.Helper()
	var ip string
	waitFor(t, "an EXTERNAL-IP for "+name, func() (bool, string) {
		s, err := c.cs.CoreV1().Services(ns).Get(ctx(t), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if len(s.Status.LoadBalancer.Ingress) == 0 {
			return false, "<pending>"
		}
		ip = s.Status.LoadBalancer.Ingress[0].IP
		return ip != "", ip
	})
	return ip
}

// serviceProxyGet GETs path of a Service port through the apiserver.
func (c *cluster) serviceProxyGet(t *testing.T, ns, svc, port, path string) (string, error) {
	b, err := c.cs.CoreV1().Services(ns).ProxyGet("http", svc, port, path, nil).DoRaw(ctx(t))
	return string(b), err
}

// readFile is a corpus file's text.
func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(file(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadBytes loads text as the file rel would be if it held it.
func loadBytes(t *testing.T, rel, text string) []manifest.Object {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load([]string{path}, manifest.Options{})
	for _, err := range errs {
		t.Fatalf("loading %s: %v", rel, err)
	}
	return objs
}

// waitPod waits until the named pod satisfies cond and returns it.
func (c *cluster) waitPod(t *testing.T, ns, name string, cond func(corev1.Pod) bool) corev1.Pod {
	t.Helper()
	var p *corev1.Pod
	waitFor(t, "pod "+ns+"/"+name, func() (bool, string) {
		var err error
		p, err = c.cs.CoreV1().Pods(ns).Get(ctx(t), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return cond(*p), p.Spec.NodeName + "=" + podState(*p)
	})
	return *p
}

// cordon marks the nodes whose names start with prefix unschedulable, as
// kubectl cordon does, until t and its subtests are done.
func (c *cluster) cordon(t *testing.T, prefix string) {
	t.Helper()
	nodes, err := c.cs.CoreV1().Nodes().List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set := func(name string, on bool) error {
		patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, on)
		_, err := c.cs.CoreV1().Nodes().Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}
	for _, n := range nodes.Items {
		if !strings.HasPrefix(n.Name, prefix) {
			continue
		}
		if err := set(n.Name, true); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := set(n.Name, false); err != nil {
				t.Errorf("uncordon %s: %v", n.Name, err)
			}
		})
	}
}

// validate runs winkube's validating webhook, with the default policy and
// this cluster's nodes and RuntimeClasses, on obj as kube-apiserver would
// send it at creation, and returns its warnings.
func (c *cluster) validate(t *testing.T, obj manifest.Object) []string {
	t.Helper()
	h, err := webhook.NewHandler(webhook.Options{Client: c.cs})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for deadline := time.Now().Add(waitGuard); !h.Ready(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the webhook's caches did not fill")
		}
	}
	raw, err := obj.Obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	gvk := obj.Obj.GroupVersionKind()
	req := &admissionv1.AdmissionRequest{UID: "1", Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Namespace: "default", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}
	resp := h.Validate(ctx(t), req)
	if !resp.Allowed {
		t.Errorf("the webhook refused %s: %v", obj.Obj.GetName(), resp.Result)
	}
	return resp.Warnings
}

// handlerRefusedOn2019: the one pod of selector lands on a Windows Server
// 2019 node (its RuntimeClass's nodeSelector, SCH-4) and its sandbox
// fails there as containerd words it for handler (KLT-11), retried at
// every sync while the pod waits in ContainerCreating.
func (c *cluster) handlerRefusedOn2019(t *testing.T, selector, handler string) {
	t.Helper()
	pods := c.settledPods(t, "default", selector, 1, func(p corev1.Pod) bool { return p.Spec.NodeName != "" })
	p := pods[0]
	if !strings.HasPrefix(p.Spec.NodeName, "win2019-") {
		t.Errorf("%s on %s, want a Windows Server 2019 node (the RuntimeClass's nodeSelector)", p.Name, p.Spec.NodeName)
	}
	msg := c.event(t, "default", p.Name, "FailedCreatePodSandBox", "no runtime for")
	if want := `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "` + handler + `" is configured`; msg != want {
		t.Errorf("FailedCreatePodSandBox = %q, want %q", msg, want)
	}
	if got := c.waitPod(t, "default", p.Name, func(corev1.Pod) bool { return true }); podState(got) != "ContainerCreating" || got.Status.Phase != corev1.PodPending {
		t.Errorf("%s is %s (%s), want Pending and ContainerCreating", p.Name, got.Status.Phase, podState(got))
	}
}
