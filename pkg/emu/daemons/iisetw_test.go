package daemons

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/etw"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// iisGet serves one request with the IIS site and returns the events a
// session tracing Microsoft-Windows-IIS-Logging received.
func iisGet(t *testing.T, appHost string) []etw.Event {
	t.Helper()
	clock := clocktesting.NewFakeClock(epoch)
	fsys := vfs.New(vfs.Options{Windows: true, Clock: clock})
	if appHost != "" {
		if err := fsys.MkdirAll(`C:\Windows\System32\inetsrv\config`, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := fsys.OpenFile(applicationHostConfig, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(appHost))
		f.Close()
	}
	p := &program.Proc{Args: []string{`C:\ServiceMonitor.exe`, "w3svc"}, Sys: &program.Sys{Windows: true, FS: fsys, Clock: clock, Hostname: "web-0"}}
	registerIISProviders(p)
	var got []etw.Event
	s := p.Sys.ETW().Start([]etw.Enable{{GUID: "7e8ad27f-b271-4ea2-a783-a47bde29143b", Level: 4}}, func(e etw.Event) { got = append(got, e) })
	defer s.Close()
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() { iisSite.serveConn(p, server); close(done) }()
	req, _ := http.NewRequest(http.MethodGet, "http://web/missing.htm?a=1", nil)
	req.Header.Set("User-Agent", "curl/8.9 (x)")
	req.Close = true
	if err := req.Write(client); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(client), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	client.Close()
	<-done
	return got
}

// With logTargetW3C including ETW, each request is event 6200 of
// Microsoft-Windows-IIS-Logging with its W3C fields; with the default
// target (File) IIS writes no ETW event.
func TestIISLogsRequestsToETW(t *testing.T) {
	const appHost = `<configuration><system.applicationHost><sites>
<site name="Default Web Site" id="1"><application path="/"/></site>
<siteDefaults><logFile logFormat="W3C" logTargetW3C="File,ETW" directory="%SystemDrive%\inetpub\logs\LogFiles"/></siteDefaults>
</sites></system.applicationHost></configuration>`
	got := iisGet(t, appHost)
	if len(got) != 1 {
		t.Fatalf("%d events, want 1", len(got))
	}
	e := got[0]
	if e.ID != 6200 || e.Level != 4 || e.Provider.Name != "Microsoft-Windows-IIS-Logging" || e.Provider.GUID != "{7E8AD27F-B271-4EA2-A783-A47BDE29143B}" {
		t.Errorf("event %+v", e)
	}
	var fields []string
	for _, d := range e.Data {
		fields = append(fields, d.Name+"="+d.Value)
	}
	for _, want := range []string{"date=2025-03-04", "time=05:06:07", "csmethod=GET", "csuristem=/missing.htm", "csuriquery=a=1",
		"scstatus=404", "csUserAgent=curl/8.9+(x)", "cshost=web", "scomputername=WEB-0", "csversion=HTTP/1.1"} {
		if !strings.Contains(strings.Join(fields, "\n")+"\n", want+"\n") {
			t.Errorf("event data lacks %s: %v", want, fields)
		}
	}
	if got := iisGet(t, strings.Replace(appHost, "File,ETW", "File", 1)); len(got) != 0 {
		t.Errorf("the File target wrote %d ETW events", len(got))
	}
	if got := iisGet(t, ""); len(got) != 0 {
		t.Errorf("the default configuration wrote %d ETW events", len(got))
	}
}
