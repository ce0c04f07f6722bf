package kubeletenv

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The cases of TestManagedHostsFileContent in pkg/kubelet/kubelet_pods_test.go.
func TestHostsFile(t *testing.T) {
	head := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
	cases := []struct {
		ips          []string
		host, domain string
		aliases      []corev1.HostAlias
		want         string
	}{
		{[]string{"123.45.67.89"}, "podFoo", "", nil, head + "123.45.67.89\tpodFoo\n"},
		{[]string{"203.0.113.1"}, "podFoo", "domainFoo", nil, head + "203.0.113.1\tpodFoo.domainFoo\tpodFoo\n"},
		{[]string{"203.0.113.1"}, "podFoo", "domainFoo", []corev1.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar", "baz"}}},
			head + "203.0.113.1\tpodFoo.domainFoo\tpodFoo\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n"},
		{[]string{"203.0.113.1"}, "podFoo", "domainFoo", []corev1.HostAlias{
			{IP: "123.45.67.89", Hostnames: []string{"foo", "bar", "baz"}}, {IP: "456.78.90.123", Hostnames: []string{"park", "doo", "boo"}}},
			head + "203.0.113.1\tpodFoo.domainFoo\tpodFoo\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n456.78.90.123\tpark\tdoo\tboo\n"},
		{[]string{"203.0.113.1", "fd00::6"}, "podFoo", "domainFoo", nil, head + "203.0.113.1\tpodFoo.domainFoo\tpodFoo\nfd00::6\tpodFoo.domainFoo\tpodFoo\n"},
	}
	for i, tc := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{HostAliases: tc.aliases}}
		if got := string(HostsFile(pod, tc.ips, tc.host, tc.domain)); got != tc.want {
			t.Errorf("case %d:\n%s\nwant\n%s", i, got, tc.want)
		}
	}
}

func TestPodHostname(t *testing.T) {
	long := strings.Repeat("a", 62) + "-b"
	cases := []struct {
		pod          corev1.Pod
		host, domain string
		sandbox      string
	}{
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}, "p", "", "p"},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Hostname: "h", Subdomain: "sub"}}, "h", "sub.ns.svc.cluster.local", "h"},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Hostname: "h", Subdomain: "sub", SetHostnameAsFQDN: ptr(true)}}, "h", "sub.ns.svc.cluster.local", "h.sub.ns.svc.cluster.local"},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: long, Namespace: "ns"}}, strings.Repeat("a", 62), "", strings.Repeat("a", 62)},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{HostNetwork: true}}, "p", "", "node-1"},
	}
	for i, tc := range cases {
		h, d, err := PodHostname(&tc.pod, "cluster.local")
		if err != nil || h != tc.host || d != tc.domain {
			t.Errorf("case %d: %q %q %v", i, h, d, err)
		}
		if s, err := SandboxHostname(&tc.pod, testNode()); err != nil || s != tc.sandbox {
			t.Errorf("case %d: sandbox %q %v want %q", i, s, err, tc.sandbox)
		}
	}
}

func TestResolvConf(t *testing.T) {
	pod := func(policy corev1.DNSPolicy, hostNet bool, cfg *corev1.PodDNSConfig) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns1"},
			Spec: corev1.PodSpec{DNSPolicy: policy, HostNetwork: hostNet, DNSConfig: cfg}}
	}
	cluster := "search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"
	host := "search .\nnameserver 127.0.0.1\n"
	cases := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"cluster first", pod(corev1.DNSClusterFirst, false, nil), cluster},
		{"cluster first on host network", pod(corev1.DNSClusterFirst, true, nil), host},
		{"cluster first with host net", pod(corev1.DNSClusterFirstWithHostNet, true, nil), cluster},
		{"default", pod(corev1.DNSDefault, false, nil), host},
		{"none", pod(corev1.DNSNone, false, &corev1.PodDNSConfig{
			Nameservers: []string{"192.0.2.1"}, Searches: []string{"ns1.svc.cluster-domain.example", "my.dns.search.suffix"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr("2")}, {Name: "edns0"}}}),
			"search ns1.svc.cluster-domain.example my.dns.search.suffix\nnameserver 192.0.2.1\noptions ndots:2 edns0\n"},
		{"cluster first merged", pod(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{
			Nameservers: []string{"10.96.0.10", "1.1.1.1"}, Searches: []string{"extra.test"},
			Options: []corev1.PodDNSConfigOption{{Name: "timeout", Value: ptr("1")}, {Name: "ndots", Value: ptr("1")}}}),
			"search ns1.svc.cluster.local svc.cluster.local cluster.local extra.test\nnameserver 10.96.0.10\nnameserver 1.1.1.1\noptions ndots:1 timeout:1\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolvConf(context.Background(), tc.pod, testNode())
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q (%v)\nwant %q", got, err, tc.want)
			}
		})
	}
}

func TestPodDNSLimits(t *testing.T) {
	var searches []string
	for i := 0; i < 40; i++ {
		searches = append(searches, "s"+strings.Repeat("x", i)+".test")
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns1"}, Spec: corev1.PodSpec{DNSPolicy: corev1.DNSNone,
		DNSConfig: &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"}, Searches: searches}}}
	d, err := PodDNS(context.Background(), pod, testNode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Servers, []string{"1.1.1.1", "2.2.2.2", "3.3.3.3"}) {
		t.Errorf("servers %q", d.Servers)
	}
	if len(d.Searches) != 32 {
		t.Errorf("%d searches", len(d.Searches))
	}
	want := "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 1.1.1.1 2.2.2.2 3.3.3.3"
	if len(d.Warnings) != 2 || d.Warnings[0] != want {
		t.Errorf("warnings %q", d.Warnings)
	}
	servers, suffixes, err := WindowsDNS(context.Background(), pod, testNode())
	if err != nil || len(servers) != 3 || len(suffixes) != 32 {
		t.Errorf("windows dns %q %q %v", servers, suffixes, err)
	}
}
