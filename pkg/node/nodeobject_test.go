package node

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/status"
)

var (
	upperGUID = regexp.MustCompile(`^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$`)
	lowerUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// specOf returns the nodeSpec of one node of the default cluster.
func specOf(t *testing.T, name string) *nodeSpec {
	t.Helper()
	for _, n := range v1alpha1.DefaultCluster().Nodes() {
		if n.Name != name {
			continue
		}
		host, err := newPersonality(n.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return &nodeSpec{name: n.Name, pool: n.Pool, ip: n.InternalIP.String(), host: host, kubelet: defaultKubeletVer}
	}
	t.Fatalf("no node %s in the default cluster", name)
	return nil
}

// The Windows kubelet reports the host name as machineID, the registry's
// hardware GUID in upper case as systemUUID and the BootId counter as
// bootID (pkg/kubelet/winstats/perfcounter_nodestats_windows.go
// getMachineInfo; its test checks the same three shapes).
// rule: KLT-1
func TestWindowsNodeInfoIdentifiers(t *testing.T) {
	info := specOf(t, "win2019-1").object().NodeInfo()
	if info.MachineID != "win2019-1" {
		t.Errorf("machineID = %q, want the host name", info.MachineID)
	}
	if !upperGUID.MatchString(info.SystemUUID) {
		t.Errorf("systemUUID = %q, want an upper-case GUID without braces", info.SystemUUID)
	}
	if _, err := strconv.ParseUint(info.BootID, 10, 64); err != nil {
		t.Errorf("bootID = %q, want a decimal integer: %v", info.BootID, err)
	}
	if again := specOf(t, "win2019-1").object().NodeInfo(); again != info {
		t.Errorf("identifiers change between agent starts: %+v then %+v", info, again)
	}

	linux := specOf(t, "linux-1").object().NodeInfo()
	if len(linux.MachineID) != 32 || strings.ToLower(linux.MachineID) != linux.MachineID {
		t.Errorf("linux machineID = %q, want 32 lower-case hex digits", linux.MachineID)
	}
	if !lowerUUID.MatchString(linux.BootID) {
		t.Errorf("linux bootID = %q, want a UUID", linux.BootID)
	}
}

// Allocatable ephemeral storage of a default Windows node: 100Gi less
// nodefs.available 10%, computed as the kubelet does with a float32
// fraction (pkg/kubelet/eviction/helpers.go parsePercentage): 100Gi ×
// float32(0.1) = 10737418400 bytes.
// rule: KLT-2
func TestAllocatableEphemeralStorageFloat32(t *testing.T) {
	got := specOf(t, "win2019-1").allocatable()[corev1.ResourceEphemeralStorage]
	if want := int64(107374182400 - 10737418400); got.Value() != want {
		t.Errorf("allocatable ephemeral-storage = %d, want %d", got.Value(), want)
	}
}

// The kubelet posts a status that differs only in heartbeat times no more
// often than nodeStatusReportFrequency (pkg/kubelet/kubelet_node_status.go
// tryUpdateNodeStatus, nodeStatusHasChanged). Flannel annotations that
// went missing are written back at the next check.
func TestNodeStatusPostedOnChangeOrEveryFiveMinutes(t *testing.T) {
	spec := specOf(t, "win2022-1")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	posted := spec.initialNode(start)
	spec.setStatus(posted, true, start)
	n := &emuNode{agent: &Agent{cluster: v1alpha1.DefaultCluster()}, spec: spec, networkReady: true, lastPosted: start, images: images.NewStore()}
	posted.Annotations = n.flannelAnnotations()

	if n.statusDue(posted, start.Add(statusCheckInterval)) {
		t.Error("unchanged status due 10 s after the last post, want it held back")
	}
	if !n.statusDue(posted, start.Add(4*time.Minute+59*time.Second).Add(time.Second)) {
		t.Error("unchanged status not due 5 min after the last post")
	}
	n.networkReady = false
	if !n.statusDue(posted, start.Add(statusCheckInterval)) {
		t.Error("Ready turning False not posted at the next check")
	}
	n.networkReady = true
	n.images.Add("mcr.microsoft.com/windows/nanoserver:ltsc2022")
	if !n.statusDue(posted, start.Add(statusCheckInterval)) {
		t.Error("a newly pulled image not posted at the next check")
	}
	n.images = images.NewStore() // the image is gone again
	delete(posted.Annotations, "flannel.alpha.coreos.com/backend-type")
	if !n.statusDue(posted, start.Add(statusCheckInterval)) {
		t.Error("a missing flannel annotation not written at the next check")
	}
}

// The status patch carries what changed and nothing of the spec: a
// condition merged by type, and the flannel annotations once the network
// is up.
func TestNodeStatusPatch(t *testing.T) {
	spec := specOf(t, "win2019-1")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cur := spec.initialNode(start)
	spec.setStatus(cur, false, start)
	n := &emuNode{agent: &Agent{cluster: v1alpha1.DefaultCluster()}, spec: spec, networkReady: true, images: images.NewStore()}
	patch, err := status.StatusPatch(cur, n.desired(cur, start.Add(time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	got := string(patch)
	for _, want := range []string{`"flannel.alpha.coreos.com/backend-type":"vxlan"`, `"type":"Ready"`, `"status":"True"`} {
		if !strings.Contains(got, want) {
			t.Errorf("patch %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, `"spec"`) || strings.Contains(got, `"labels"`) {
		t.Errorf("patch %s writes more than annotations and status", got)
	}
}

// An extended resource patched into the node's capacity (as operators and
// the scheduling e2e tests do with example.com/fakecpu) survives the
// node's status posts and shows in allocatable, as the kubelet keeps it;
// one taken out of capacity leaves allocatable too.
func TestNodeStatusKeepsExtendedResources(t *testing.T) {
	spec := specOf(t, "linux-1")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cur := spec.initialNode(start)
	fake := corev1.ResourceName("example.com/fakecpu")
	cur.Status.Capacity[fake] = resource.MustParse("1000")
	n := &emuNode{agent: &Agent{cluster: v1alpha1.DefaultCluster()}, spec: spec, networkReady: true, images: storeOf("pause")}
	want := n.desired(cur, start.Add(time.Second))
	if q := want.Status.Allocatable[fake]; q.Cmp(resource.MustParse("1000")) != 0 {
		t.Errorf("allocatable %s = %s, want 1000", fake, q.String())
	}
	patch, err := status.StatusPatch(cur, want)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(patch), `"example.com/fakecpu":null`) {
		t.Errorf("the status post deletes %s: %s", fake, patch)
	}

	delete(want.Status.Capacity, fake)
	again := n.desired(want, start.Add(2*time.Second))
	if _, ok := again.Status.Allocatable[fake]; ok {
		t.Errorf("allocatable keeps %s after it left capacity", fake)
	}
}

// storeOf is a node's runtime holding refs.
func storeOf(refs ...string) *images.Store {
	s := images.NewStore()
	for _, r := range refs {
		s.Add(r)
	}
	return s
}
