package activedirectory

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A credential spec must name its domain and account; the error says
// which is missing.
func TestParseCredentialSpec(t *testing.T) {
	good := `{"CmsPlugins":["ActiveDirectory"],"DomainJoinConfig":{"DnsName":"contoso.com","MachineAccountName":"WebApp01"}}`
	cs, err := ParseCredentialSpec(good)
	if err != nil || cs.DomainJoinConfig.DnsName != "contoso.com" || cs.DomainJoinConfig.MachineAccountName != "WebApp01" {
		t.Fatalf("ParseCredentialSpec(good) = %+v, %v", cs, err)
	}
	for in, want := range map[string]string{
		`not json`: "is not a credential spec",
		`{"DomainJoinConfig":{"MachineAccountName":"WebApp01"}}`: "no DomainJoinConfig.DnsName",
		`{"DomainJoinConfig":{"DnsName":"contoso.com"}}`:         "no DomainJoinConfig.MachineAccountName",
	} {
		if _, err := ParseCredentialSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCredentialSpec(%s) = %v, want an error with %q", in, err, want)
		}
	}
}

// The container's own gmsaCredentialSpec wins over the pod's, as the
// kubelet merges them.
func TestCredentialSpecOf(t *testing.T) {
	str := func(s string) *string { return &s }
	withSpec := func(s string) *corev1.WindowsSecurityContextOptions {
		return &corev1.WindowsSecurityContextOptions{GMSACredentialSpec: str(s)}
	}
	pod := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{WindowsOptions: withSpec("pod")}}
	own := &corev1.Container{SecurityContext: &corev1.SecurityContext{WindowsOptions: withSpec("container")}}
	plain := &corev1.Container{}
	for _, tc := range []struct {
		pod  *corev1.PodSpec
		c    *corev1.Container
		want string
	}{
		{pod, own, "container"},
		{pod, plain, "pod"},
		{&corev1.PodSpec{}, plain, ""},
		{nil, nil, ""},
	} {
		if got := CredentialSpecOf(tc.pod, tc.c); got != tc.want {
			t.Errorf("CredentialSpecOf = %q, want %q", got, tc.want)
		}
	}
}

// An emulated domain is the same for the same DNS name, in any case, and
// its NetBIOS name defaults to dcpromo's.
func TestNewDomain(t *testing.T) {
	d := NewDomain("Contoso.com", "")
	if d != NewDomain("contoso.com", "") {
		t.Errorf("NewDomain depends on the DNS name's case: %+v", d)
	}
	if d.DNSName != "contoso.com" || d.NetBIOSName != "CONTOSO" || d.Realm() != "CONTOSO.COM" || d.DomainController() != "dc01.contoso.com" {
		t.Errorf("NewDomain(contoso.com) = %+v", d)
	}
	if !strings.HasPrefix(d.SID, "S-1-5-21-") || len(d.GUID) != 36 {
		t.Errorf("SID %q, GUID %q", d.SID, d.GUID)
	}
	if NewDomain("contoso.com", "CORP").NetBIOSName != "CORP" {
		t.Error("an explicit NetBIOS name is not kept")
	}
	for name, want := range map[string]bool{"contoso.com": true, "CONTOSO": true, "contoso.com.": true, "fabrikam.com": false, "": false} {
		if got := d.Names(name); got != want {
			t.Errorf("Names(%q) = %v, want %v", name, got, want)
		}
	}
}
