package v1alpha1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

func TestDefaultCluster(t *testing.T) {
	c := DefaultCluster()
	if errs := Validate(c); len(errs) > 0 {
		t.Fatalf("default cluster is invalid: %v", errs)
	}
	nodes := c.Nodes()
	want := []struct{ name, os, ip string }{
		{"linux-1", "linux", "10.127.130.10"},
		{"win2019-1", "windows", "10.127.130.11"},
		{"win2019-2", "windows", "10.127.130.12"},
		{"win2022-1", "windows", "10.127.130.13"},
	}
	if len(nodes) != len(want) {
		t.Fatalf("got %d nodes, want %d", len(nodes), len(want))
	}
	for i, w := range want {
		n := nodes[i]
		if n.Name != w.name || n.Pool.OS != w.os || n.InternalIP.String() != w.ip {
			t.Errorf("node %d = %s/%s/%s, want %s/%s/%s", i, n.Name, n.Pool.OS, n.InternalIP, w.name, w.os, w.ip)
		}
	}
	// PLAN-1 default address spaces.
	// rule: PLAN-1
	if c.Network.ClusterCIDR != "10.244.0.0/16" || c.Network.ServiceCIDR != "10.96.0.0/12" || c.Network.DNSServiceIP != "10.96.0.10" {
		t.Errorf("network defaults = %+v", c.Network)
	}
	if c.Network.Mode != ModeOverlay || c.Network.ManagementCIDR != "10.127.130.0/24" {
		t.Errorf("network defaults = %+v", c.Network)
	}
}

func TestDefaultWindowsPools(t *testing.T) {
	c := DefaultCluster()
	builds := map[string]string{"win2019": "10.0.17763", "win2022": "10.0.20348"}
	for _, p := range c.NodePools {
		if !p.IsWindows() {
			if len(p.Taints) != 0 {
				t.Errorf("linux pool tainted: %v", p.Taints)
			}
			continue
		}
		// rule: SCH-3
		if len(p.Taints) != 1 || p.Taints[0] != WindowsTaint {
			t.Errorf("pool %s taints = %v, want os=windows:NoSchedule", p.Name, p.Taints)
		}
		b, err := p.WindowsBuild()
		if err != nil || b.Label() != builds[p.Name] {
			t.Errorf("pool %s build = %v, %v; want %s", p.Name, b, err, builds[p.Name])
		}
		// rule: KLT-2 (Windows eviction-hard defaults), LIM-19 (2 GiB system-reserved)
		if p.EvictionHard["memory.available"] != "500Mi" {
			t.Errorf("pool %s evictionHard = %v", p.Name, p.EvictionHard)
		}
		if m := p.SystemReserved[corev1.ResourceMemory]; m.String() != "2Gi" {
			t.Errorf("pool %s systemReserved memory = %s, want 2Gi", p.Name, m.String())
		}
	}
}

func TestValidFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid-*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestValidFull(t *testing.T) {
	c, err := Load("testdata/valid-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeCount() != 6 || c.Network.Mode != ModeL2Bridge || !c.Network.EnableDSR {
		t.Errorf("decoded %+v", c)
	}
	legacy := c.NodePools[2]
	if legacy.Taints == nil || len(legacy.Taints) != 0 {
		t.Errorf("explicit empty taints must stay empty, got %v", legacy.Taints)
	}
	b, _ := c.NodePools[1].WindowsBuild()
	if b.String() != "10.0.20348.2227" {
		t.Errorf("build with UBR = %s", b)
	}
	if c.Network.LoadBalancerCIDR != "192.168.51.0/28" {
		t.Errorf("loadBalancerCIDR = %q, want the file's 192.168.51.0/28", c.Network.LoadBalancerCIDR)
	}
	if c.Nodes()[0].InternalIP.String() != "192.168.50.10" {
		t.Errorf("first node IP = %s", c.Nodes()[0].InternalIP)
	}
	if len(c.Images) != 2 || !c.Images[0].Single || c.Images[0].Platforms[0].OSVersion != "10.0.20348.2227" || len(c.Images[1].Platforms) != 2 {
		t.Errorf("images %+v", c.Images)
	}
}

func TestInvalidFiles(t *testing.T) {
	cases := map[string][]string{
		"invalid-unknown-field.yaml": {`unknown field "nodePools[0].cpus"`},
		"invalid-yaml.yaml":          {"invalid YAML", "line 4"},
		// A manifest given to --config by mistake is named, not listed as
		// unknown fields of a Cluster.
		"invalid-deployment.yaml": {"it is a Deployment (apps/v1), not a winkube cluster config: want apiVersion: winkube.io/v1alpha1 and kind: Cluster"},
		// Unknown fields and validation problems come in one report.
		"invalid-unknown-and-invalid.yaml": {"2 problem(s):", `unknown field "nodePools[0].cpus"`, `nodePools[0].release: Invalid value: "2012"`},
		"invalid-empty-pools.yaml":         {"nodePools: Required value"},
		"invalid-domain.yaml": {
			`activeDirectory.domain: Invalid value: "contoso": want a DNS name of two or more labels`,
			`activeDirectory.netBIOSName: Invalid value: "CONTOSO:CORP": want 1 to 15 characters`,
		},
		"invalid-ipv6.yaml": {"network.clusterCIDR", "LIM-13"},
		"invalid-images.yaml": {
			`images[0].image: Invalid value: "::bad::"`,
			`images[0].platforms[0].os: Unsupported value: "macos"`,
			"images[1].platforms[0].osVersion: Forbidden: only Windows entries carry os.version",
			"images[1].platforms[1].architecture: Required value",
			`images[1].platforms[1].osVersion: Invalid value: "2019": want a Windows version 10.0.BUILD[.UBR]`,
			`images[2].image: Duplicate value: "registry.example.com/team/web:1.0"`,
			"images[2].platforms: Required value",
		},
		"invalid-too-many-pods.yaml": {
			"network.clusterCIDR: Invalid value: \"10.244.0.0/22\": holds 4 node subnets of /24 but the pools have 5 nodes",
			"nodePools[0].maxPods: Invalid value: 300: a /24 node subnet holds only 253 pod addresses",
		},
		"invalid-many.yaml": {
			`network.mode: Unsupported value: "vxlan"`,
			"network.serviceCIDR: Invalid value: \"10.96.0.0/12\": overlaps network.clusterCIDR",
			"network.dnsServiceIP: Invalid value: \"10.244.0.10\": must be inside network.serviceCIDR",
			"nodePools[0].name: Invalid value: \"Win_2019\"",
			"nodePools[0].release: Invalid value: \"2012\": unknown Windows Server release",
			`nodePools[0].runtime: Unsupported value: "cri-o"`,
			"nodePools[0].cpu: Invalid value: -1",
			`nodePools[0].taints[0].effect: Unsupported value: "Sometimes"`,
			"nodePools[1].release: Forbidden: release and build are for windows pools only",
			`nodePools[2].name: Duplicate value: "lin"`,
			`nodePools[2].os: Unsupported value: "macos"`,
		},
	}
	for file, wants := range cases {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", file)
			_, err := Load(path)
			if err == nil {
				t.Fatal("expected an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error does not name the file: %s", msg)
			}
			for _, w := range wants {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
		})
	}
	// Every invalid-* file must have expectations.
	files, _ := filepath.Glob("testdata/invalid-*.yaml")
	for _, f := range files {
		if _, ok := cases[filepath.Base(f)]; !ok {
			t.Errorf("%s has no expectations", f)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("testdata/missing.yaml"); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file error = %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file error = %v", err)
	}
	c, err := Load("")
	if err != nil || c.NodeCount() != 4 {
		t.Errorf("Load(\"\") = %v, %v", c, err)
	}
}

// The default pause image must run on the pool's build, else every pod
// stays ContainerCreating.
// rule: IMG-5, TS-11
func TestDefaultPauseImageMatchesBuild(t *testing.T) {
	for _, release := range []string{"2019", "2022", "2025", "20H2", "2004"} {
		p := NodePool{Name: "w", OS: OSWindows, Release: release}
		setPoolDefaults(&p, pauseK8sMinor)
		b, _ := p.WindowsBuild()
		if _, err := imageinfo.MatchHost(imageinfo.Lookup(p.PauseImage), OSWindows, "amd64", b); err != nil {
			t.Errorf("release %s: default pause image %s does not run: %v", release, p.PauseImage, err)
		}
	}
	p := NodePool{Name: "l", OS: OSLinux}
	setPoolDefaults(&p, pauseK8sMinor)
	if p.PauseImage != windows.DefaultPauseImage(pauseK8sMinor) {
		t.Errorf("linux pause image = %s", p.PauseImage)
	}
}

// The emulated domain: activeDirectory's, else contoso.com; its NetBIOS
// name defaults from the first label, its GUID and SID from the DNS name.
func TestDomain(t *testing.T) {
	d := DefaultCluster().Domain()
	if d.DNSName != DefaultDomain || d.NetBIOSName != "CONTOSO" || d.DomainController() != "dc01.contoso.com" || d.Realm() != "CONTOSO.COM" {
		t.Errorf("default domain %+v", d)
	}
	c := &Cluster{ActiveDirectory: &ActiveDirectory{Domain: "Corp.Example.org"}}
	SetDefaults(c)
	if errs := Validate(c); len(errs) > 0 {
		t.Fatal(errs)
	}
	d = c.Domain()
	if d.DNSName != "corp.example.org" || d.NetBIOSName != "CORP" || !d.Names("CORP") || !d.Names("corp.example.org.") || d.Names("example.org") {
		t.Errorf("domain %+v", d)
	}
	if d.SID == DefaultCluster().Domain().SID || !strings.HasPrefix(d.SID, "S-1-5-21-") || len(d.GUID) != 36 {
		t.Errorf("derived SID %s, GUID %s", d.SID, d.GUID)
	}
}
