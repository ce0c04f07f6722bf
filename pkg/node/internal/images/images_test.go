package images

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// linuxRuntime is a Linux node's containerd.
var linuxRuntime = cri.Runtime{Name: cri.Containerd, Version: "2.1.4", OS: "linux", Arch: "amd64"}

// pullWait stands for the pod worker's pause: done says whether the
// pause is over when Ensure asks.
type pullWait struct {
	pulling, done bool
	paused        []time.Duration
}

func (w *pullWait) Pulling() bool { return w.pulling }

func (w *pullWait) Pause(d time.Duration) bool {
	w.paused = append(w.paused, d)
	w.pulling = !w.done
	return w.done
}

type fixture struct {
	m     *Manager
	rec   *record.FakeRecorder
	clock *clocktesting.FakePassiveClock
	// answer is what the resolver finds for every ref.
	answer func(ref string) imageinfo.Answer
	strict bool
}

func newFixture(answer func(ref string) imageinfo.Answer) *fixture {
	f := &fixture{
		rec:    record.NewFakeRecorder(100),
		clock:  clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		answer: answer,
	}
	f.m = New(Config{
		Recorder: f.rec, Clock: f.clock, Runtime: linuxRuntime,
		Resolve: func(_ context.Context, _ *corev1.Pod, ref string) imageinfo.Answer { return f.answer(ref) },
	})
	return f
}

func catalog(ref string) imageinfo.Answer { return imageinfo.CatalogAnswer(ref) }

func missing(ref string) imageinfo.Answer {
	ans := imageinfo.CatalogAnswer(ref)
	ans.Image.Missing = imageinfo.ErrTagNotFound
	return ans
}

func testPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1"}}
}

// ensure runs one pull step of a container with image and policy; the
// pull's pause is over at once.
func (f *fixture) ensure(image string, policy corev1.PullPolicy, st *State) Result {
	return f.m.Ensure(context.Background(), Pull{
		Pod: testPod(), Container: &corev1.Container{Name: "c", Image: image, ImagePullPolicy: policy},
		Ref: &corev1.ObjectReference{Kind: "Pod", Name: "p"}, State: st, Wait: &pullWait{done: true},
	})
}

// events drains the recorded events.
func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// A pull is announced once, the pod pauses for it, and the step at its end
// reports the kubelet's Pulled event; the node then holds the image.
func TestEnsurePausesForThePull(t *testing.T) {
	f := newFixture(catalog)
	st := &State{}
	w := &pullWait{}
	p := Pull{
		Pod: testPod(), Container: &corev1.Container{Name: "c", Image: "busybox:1.36", ImagePullPolicy: corev1.PullIfNotPresent},
		Ref: &corev1.ObjectReference{Kind: "Pod", Name: "p"}, State: st, Wait: w,
	}
	r := f.m.Ensure(context.Background(), p)
	if r.OK || r.Waiting != nil || len(w.paused) != 1 || w.paused[0] <= 0 {
		t.Fatalf("the first step: %+v, paused %v; want a pause and no verdict", r, w.paused)
	}
	if got := f.events(); !slices.Equal(got, []string{`Normal Pulling Pulling image "busybox:1.36"`}) {
		t.Errorf("events of the first step %q", got)
	}
	w.done = true
	r = f.m.Ensure(context.Background(), p)
	if !r.OK || r.Image.Ref == "" {
		t.Fatalf("the step at the end of the pull: %+v", r)
	}
	got := f.events()
	if len(got) != 1 || !strings.HasPrefix(got[0], `Normal Pulled Successfully pulled image "busybox:1.36" in `) ||
		!strings.Contains(got[0], "including waiting). Image size: ") {
		t.Errorf("events at the end of the pull %q, want only Pulled", got)
	}
	if !f.m.Store().Has(r.Image.Ref) {
		t.Errorf("the node does not hold %s after pulling it", r.Image.Ref)
	}
}

// The pull policy decides, in image_manager.go's words: IfNotPresent and
// Never take an image the node holds, Always pulls it again, and Never
// fails for an image the node lacks.
func TestEnsurePullPolicy(t *testing.T) {
	const image = "busybox:1.36"
	present := `Normal Pulled Container image "busybox:1.36" already present on machine and can be accessed by the pod`
	f := newFixture(catalog)
	r := f.ensure(image, corev1.PullNever, &State{})
	want := `Container image "busybox:1.36" is not present with pull policy of Never`
	if r.OK || r.Waiting == nil || r.Waiting.Reason != "ErrImageNeverPull" || r.Waiting.Message != want {
		t.Fatalf("Never without the image: %+v", r)
	}
	if got := f.events(); !slices.Equal(got, []string{"Warning ErrImageNeverPull " + want, "Warning Failed Error: ErrImageNeverPull"}) {
		t.Errorf("Never without the image: events %q", got)
	}
	if r.RetryAt.Before(f.clock.Now().Add(10 * time.Second)) {
		t.Errorf("Never without the image retried at %s, before the sync back-off", r.RetryAt)
	}

	if r := f.ensure(image, corev1.PullIfNotPresent, &State{}); !r.OK {
		t.Fatalf("IfNotPresent pull: %+v", r)
	}
	f.events()
	for _, policy := range []corev1.PullPolicy{corev1.PullIfNotPresent, corev1.PullNever} {
		if r := f.ensure(image, policy, &State{}); !r.OK {
			t.Fatalf("%s with the image: %+v", policy, r)
		}
		if got := f.events(); !slices.Equal(got, []string{present}) {
			t.Errorf("%s with the image: events %q", policy, got)
		}
	}
	if r := f.ensure(image, corev1.PullAlways, &State{}); !r.OK {
		t.Fatalf("Always with the image: %+v", r)
	}
	got := f.events()
	if len(got) != 2 || got[0] != `Normal Pulling Pulling image "busybox:1.36"` || !strings.HasPrefix(got[1], "Normal Pulled Successfully pulled") {
		t.Errorf("Always with the image: events %q, want a pull", got)
	}
}

// A failed pull shows ErrImagePull; the syncs within its back-off show
// ImagePullBackOff without pulling; the first sync after the window pulls
// again, and a second failure doubles the window.
// rule: IMG-4
func TestEnsureBacksOffAFailedPull(t *testing.T) {
	const image = "busybox:no-such-tag"
	f := newFixture(missing)
	st := &State{}
	r := f.ensure(image, corev1.PullIfNotPresent, st)
	if r.OK || r.Waiting == nil || r.Waiting.Reason != "ErrImagePull" {
		t.Fatalf("failed pull: %+v", r)
	}
	pullErr := r.Waiting.Message
	got := f.events()
	want := []string{
		`Normal Pulling Pulling image "busybox:no-such-tag"`,
		fmt.Sprintf(`Warning Failed Failed to pull image "busybox:no-such-tag": %s`, pullErr),
		"Warning Failed Error: ErrImagePull",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events of the failed pull\n got %q\nwant %q", got, want)
	}

	f.clock.SetTime(f.clock.Now().Add(9 * time.Second))
	r = f.ensure(image, corev1.PullIfNotPresent, st)
	wantMsg := fmt.Sprintf(`Back-off pulling image "busybox:no-such-tag": ErrImagePull: %s`, pullErr)
	if r.Waiting == nil || r.Waiting.Reason != "ImagePullBackOff" || r.Waiting.Message != wantMsg {
		t.Fatalf("sync within the back-off: %+v", r)
	}
	want = []string{`Normal BackOff Back-off pulling image "busybox:no-such-tag"`, "Warning Failed Error: ImagePullBackOff"}
	if got := f.events(); !slices.Equal(got, want) {
		t.Errorf("events within the back-off\n got %q\nwant %q", got, want)
	}

	// 10 s after the failure the window is over: the sync pulls again,
	// fails, and the window grows to 20 s.
	f.clock.SetTime(f.clock.Now().Add(time.Second))
	if r := f.ensure(image, corev1.PullIfNotPresent, st); r.Waiting == nil || r.Waiting.Reason != "ErrImagePull" {
		t.Fatalf("sync after the window: %+v", r)
	}
	f.events()
	f.clock.SetTime(f.clock.Now().Add(15 * time.Second))
	if r := f.ensure(image, corev1.PullIfNotPresent, st); r.Waiting == nil || r.Waiting.Reason != "ImagePullBackOff" {
		t.Fatalf("sync 15 s into a 20 s window: %+v", r)
	}

	// Once the tag exists, the pull after the window succeeds and the
	// back-off is forgotten.
	f.answer = catalog
	f.clock.SetTime(f.clock.Now().Add(5 * time.Second))
	if r := f.ensure(image, corev1.PullIfNotPresent, st); !r.OK {
		t.Fatalf("pull after the window once the tag exists: %+v", r)
	}
	if st.err != "" {
		t.Errorf("the pull error %q outlived a pull that worked", st.err)
	}
}

// An image nobody can answer for runs unverified with a Warning by
// default, and fails to pull in strict mode, in containerd's words.
// rule: IMG-3
func TestEnsureUnknownImage(t *testing.T) {
	unknown := func(ref string) imageinfo.Answer {
		ans := imageinfo.CatalogAnswer(ref)
		ans.Source = imageinfo.SourceUnknown
		return ans
	}
	f := newFixture(unknown)
	if r := f.ensure("example.test/app:1", corev1.PullIfNotPresent, &State{}); !r.OK {
		t.Fatalf("unverified pull: %+v", r)
	}
	got := f.events()
	if len(got) != 3 || !strings.HasPrefix(got[2], `Warning ImageUnverified winkube cannot tell which platforms image "example.test/app:1" offers: `+
		"winkube's catalog does not know it and no registry was asked") {
		t.Errorf("unverified pull: events %q", got)
	}

	f = newFixture(unknown)
	f.m.cfg.Strict = true
	r := f.ensure("example.test/app:1", corev1.PullIfNotPresent, &State{})
	if r.Waiting == nil || r.Waiting.Reason != "ErrImagePull" ||
		!strings.HasPrefix(r.Waiting.Message, `rpc error: code = Unknown desc = failed to pull and unpack image "example.test/app:1"`) {
		t.Fatalf("strict pull: %+v", r)
	}
}

// The image of a container that ran before the agent restarted is there
// without a pull and its events, and the node lists it.
func TestKept(t *testing.T) {
	f := newFixture(catalog)
	pulled, err := f.m.Kept(context.Background(), testPod(), "busybox:1.36")
	if err != nil {
		t.Fatal(err)
	}
	if !f.m.Store().Has(pulled.Ref) || len(f.m.Store().List()) != 1 {
		t.Errorf("the node lists %v, want %s", f.m.Store().List(), pulled.Ref)
	}
	if got := f.events(); len(got) != 0 {
		t.Errorf("events %q, want none", got)
	}
	f.answer = missing
	if _, err := f.m.Kept(context.Background(), testPod(), "busybox:gone"); err == nil {
		t.Error("an image that cannot be pulled counted as kept")
	}
}

// resolverFunc is an imageinfo.Resolver that records its requests.
type resolverFunc func(req imageinfo.Request) imageinfo.Answer

func (f resolverFunc) Resolve(_ context.Context, req imageinfo.Request) imageinfo.Answer {
	return f(req)
}

// The registry is asked with the pod's pull secrets and then its service
// account's, as the kubelet passes them; a Secret that does not exist or
// is of another type is skipped. A registry's "not found" makes the image
// missing, so the pull fails as on a real node.
func TestSourceReadsPullSecrets(t *testing.T) {
	secret := func(name string, typ corev1.SecretType, key string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Type: typ,
			Data: map[string][]byte{key: []byte(name)},
		}
	}
	client := fake.NewClientset(
		secret("pod-secret", corev1.SecretTypeDockerConfigJson, corev1.DockerConfigJsonKey),
		secret("sa-secret", corev1.SecretTypeDockercfg, corev1.DockerConfigKey),
		secret("opaque", corev1.SecretTypeOpaque, "x"),
		&corev1.ServiceAccount{
			ObjectMeta:       metav1.ObjectMeta{Namespace: "ns", Name: "builder"},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "sa-secret"}, {Name: "pod-secret"}},
		},
	)
	var asked [][]byte
	src := &Source{Client: client, Resolver: resolverFunc(func(req imageinfo.Request) imageinfo.Answer {
		asked = req.PullSecrets
		return imageinfo.Answer{Image: imageinfo.Lookup(req.Ref), Source: imageinfo.SourceUnknown, Err: fmt.Errorf("GET: %w", registry.ErrNotFound)}
	})}
	pod := testPod()
	pod.Spec.ServiceAccountName = "builder"
	pod.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pod-secret"}, {Name: "absent"}, {Name: "opaque"}}
	ans := src.Resolve(context.Background(), pod, "registry.example.test/app:1")
	got := make([]string, len(asked))
	for i, s := range asked {
		got[i] = string(s)
	}
	if want := []string{"pod-secret", "sa-secret"}; !slices.Equal(got, want) {
		t.Errorf("pull secrets passed %q, want %q", got, want)
	}
	if !errors.Is(ans.Image.Missing, imageinfo.ErrTagNotFound) {
		t.Errorf("a registry's not found left Missing = %v", ans.Image.Missing)
	}
}

// Without a registry resolver the catalog answers and no secret is read.
func TestSourceWithoutRegistry(t *testing.T) {
	client := fake.NewClientset()
	src := &Source{Client: client}
	ans := src.Resolve(context.Background(), testPod(), "busybox:1.36")
	if want := imageinfo.CatalogAnswer("busybox:1.36"); ans.Source != want.Source || ans.Image.Ref() != want.Image.Ref() || ans.Err != nil {
		t.Errorf("answer %+v, want the catalog's", ans)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d API calls without a registry to ask", n)
	}
}
