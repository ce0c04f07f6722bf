package winutil

import "github.com/winkube/winkube/pkg/emu/program"

// PodIPer is implemented by a program.Net that knows the pod's address;
// ipconfig and Test-NetConnection print it.
type PodIPer interface {
	PodIP() string
}

// DNSConfiger is implemented by a program.Net that knows the pod's DNS
// settings (ipconfig /all, nslookup's server).
type DNSConfiger interface {
	DNSServers() []string
	DNSSearch() []string
}

// PodIP is the pod's IPv4 address, 0.0.0.0 when the network does not say.
func PodIP(sys *program.Sys) string {
	if n, ok := sys.Net.(PodIPer); ok && n.PodIP() != "" {
		return n.PodIP()
	}
	return "0.0.0.0"
}

// DNS is the pod's DNS servers and search list (none when unknown).
func DNS(sys *program.Sys) (servers, search []string) {
	if n, ok := sys.Net.(DNSConfiger); ok {
		return n.DNSServers(), n.DNSSearch()
	}
	return nil, nil
}
