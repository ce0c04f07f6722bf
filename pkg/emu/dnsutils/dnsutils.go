// Package dnsutils holds the DNS tools of the e2e images' userlands: dig
// (ISC BIND's, in jessie-dnsutils and agnhost) and getent (glibc's in
// jessie-dnsutils, musl's in agnhost's Alpine). dig asks the servers the
// container's resolv.conf names, in DNS messages (github.com/miekg/dns)
// sent over the pod's network; getent resolves as the C library does.
package dnsutils

import (
	"io"
	"os"

	miekg "github.com/miekg/dns"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// Table is the programs, by program.Name.
func Table() map[string]program.Main {
	return map[string]program.Main{"dig": Dig, "getent": Getent}
}

// resolvConf is the container's /etc/resolv.conf, parsed as the stub
// resolver does; a missing file is the resolver's defaults. Windows has
// no resolv.conf: BIND's dig there asks the system (GetNetworkParams) for
// the adapter's servers and search list.
func resolvConf(p *program.Proc) *miekg.ClientConfig {
	conf := &miekg.ClientConfig{Port: "53", Ndots: 1, Timeout: 5, Attempts: 2}
	if p.Sys.Windows {
		conf.Servers, conf.Search = winutil.DNS(p.Sys)
		return conf
	}
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, "/etc/resolv.conf"), os.O_RDONLY, 0)
	if err != nil {
		return conf
	}
	defer f.Close()
	if c, err := miekg.ClientConfigFromReader(io.LimitReader(f, 1<<20)); err == nil {
		conf = c
	}
	return conf
}
