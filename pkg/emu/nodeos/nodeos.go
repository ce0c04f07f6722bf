// Package nodeos turns a node's facts (windows.HostOf) into what the OS of
// the node's containers says about itself (program.OSInfo): the one place
// the node and the tests make a container's OS from a Node.
package nodeos

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// Of is what a container on the node says about its OS: the version,
// registry values and PowerShell version of a Windows node, the kernel
// release of a Linux node.
func Of(node *corev1.Node) program.OSInfo {
	f := windows.HostOf(node).OSFacts()
	v := f.Version
	return program.OSInfo{
		Major: v.Major, Minor: v.Minor, Build: v.Build, UBR: v.Revision,
		ProductName: f.ProductName, EditionID: f.EditionID,
		ReleaseID: f.ReleaseID, DisplayVersion: f.DisplayVersion, PSVersion: f.PSVersion,
		KernelRelease: f.KernelRelease,
	}
}

// Release is the Node a Windows node of a release ("2019", "ltsc2022")
// registers, with the UBR the emulated nodes report (KLT-1, SCH-1); nil
// for a release the table does not know. Tests use it to make the OS of a
// container on such a node.
func Release(name, hostname string) *corev1.Node {
	r, ok := windows.ReleaseByName(name)
	if !ok {
		return nil
	}
	n := &corev1.Node{}
	n.Name = hostname
	n.Labels = kubelet.NodeLabels("windows", "amd64", r.Version(), 0, false)
	n.Status.NodeInfo = kubelet.NodeSystemInfo(r.Version(), "amd64", "", "")
	return n
}

// GMSA is the identity of a Windows container whose credential spec is
// spec (activedirectory.CredentialSpecOf) on a node joined to domain: the
// spec's account in the spec's domain, reaching the domain's controller
// only when that is the node's domain. nil for an empty spec; an error
// for a spec that is not one.
func GMSA(spec string, domain activedirectory.Domain) (*program.GMSAIdentity, error) {
	if spec == "" {
		return nil, nil
	}
	cs, err := activedirectory.ParseCredentialSpec(spec)
	if err != nil {
		return nil, err
	}
	dj := cs.DomainJoinConfig
	id := &program.GMSAIdentity{Account: dj.MachineAccountName, DNSName: dj.DnsName, NetBIOSName: dj.NetBiosName}
	if id.NetBIOSName == "" {
		id.NetBIOSName = windows.NetBIOSNameOf(dj.DnsName)
	}
	if domain.Names(dj.DnsName) {
		id.DomainController = domain.DomainController()
	}
	return id, nil
}
