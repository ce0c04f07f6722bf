package daemons

import (
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/etw"
	"github.com/winkube/winkube/pkg/emu/program"
)

// IIS's ETW providers, registered when W3SVC starts: its W3C logging
// provider (IIS 8.5+, event 6200 per request when a site's
// logFile/@logTargetW3C includes ETW) and the classic "IIS: WWW Server"
// tracing provider, whose MOF events the emulation does not write.
var (
	iisLogging   = etw.Provider{Name: "Microsoft-Windows-IIS-Logging", GUID: "{7E8AD27F-B271-4EA2-A783-A47BDE29143B}", Decoding: etw.DecodingXMLFile}
	iisWWWServer = etw.Provider{Name: "IIS: WWW Server", GUID: "{3A2A4E84-4C21-4981-AE10-3FDA0D9B0F83}", Decoding: etw.DecodingWbem}
)

// applicationHostConfig is IIS's configuration, where a site's W3C log
// target is set (appcmd, Set-WebConfigurationProperty, or a mounted
// file).
const applicationHostConfig = `C:\Windows\System32\inetsrv\config\applicationHost.config`

// w3cDefaultFlags are logExtFileFlags' default (Date, Time, ClientIP,
// UserName, ServerIP, Method, UriStem, UriQuery, HttpStatus,
// Win32Status, TimeTaken, ServerPort, UserAgent, Referer,
// HttpSubStatus) as the MD_EXTLOG_* bits.
const w3cDefaultFlags = 0x25CFCF

func registerIISProviders(p *program.Proc) {
	t := p.Sys.ETW()
	t.Register(iisLogging)
	t.Register(iisWWWServer)
}

// logsToETW reports whether the default web site (ID 1) logs to ETW: its
// own logFile's logTargetW3C, else siteDefaults', else File alone.
func logsToETW(p *program.Proc) bool {
	f, err := p.Sys.FS.OpenFile(applicationHostConfig, 0, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var cfg struct {
		Sites struct {
			Defaults struct {
				LogFile struct {
					Target string `xml:"logTargetW3C,attr"`
				} `xml:"logFile"`
			} `xml:"siteDefaults"`
			Site []struct {
				ID      string `xml:"id,attr"`
				LogFile struct {
					Target string `xml:"logTargetW3C,attr"`
				} `xml:"logFile"`
			} `xml:"site"`
		} `xml:"system.applicationHost>sites"`
	}
	if err := xml.NewDecoder(io.LimitReader(f, 4<<20)).Decode(&cfg); err != nil {
		return false
	}
	target := cfg.Sites.Defaults.LogFile.Target
	for _, s := range cfg.Sites.Site {
		if s.ID == "1" && s.LogFile.Target != "" {
			target = s.LogFile.Target
		}
	}
	for _, t := range strings.Split(target, ",") {
		if strings.EqualFold(strings.TrimSpace(t), "ETW") {
			return true
		}
	}
	return false
}

// iisRequestLogged writes a request's W3C record as event 6200 of
// Microsoft-Windows-IIS-Logging, when a session traces it and the site
// logs to ETW. The emulation has no process IDs: they are 0.
func iisRequestLogged(p *program.Proc, c io.ReadWriteCloser, req *http.Request, status int, sent int64, started time.Time) {
	t := p.Sys.ETW()
	if !t.IsEnabled(iisLogging.GUID, 4, 0) || !logsToETW(p) {
		return
	}
	now := p.Sys.Clock.Now()
	cip, sip, sport := "-", "-", "80"
	if nc, ok := c.(net.Conn); ok {
		if h, _, err := net.SplitHostPort(nc.RemoteAddr().String()); err == nil {
			cip = h
		}
		if h, port, err := net.SplitHostPort(nc.LocalAddr().String()); err == nil {
			sip, sport = h, port
		}
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return strings.ReplaceAll(s, " ", "+")
	}
	received := req.ContentLength
	if received < 0 {
		received = 0
	}
	t.Write(etw.Event{Provider: iisLogging, Time: now, ID: 6200, Level: 4, Data: []etw.Property{
		{Name: "EnabledFieldsFlags", Value: strconv.Itoa(w3cDefaultFlags)},
		{Name: "date", Value: now.UTC().Format("2006-01-02")}, {Name: "time", Value: now.UTC().Format("15:04:05")},
		{Name: "cip", Value: cip}, {Name: "csusername", Value: "-"}, {Name: "ssitename", Value: "W3SVC1"},
		{Name: "scomputername", Value: strings.ToUpper(p.Sys.Hostname)}, {Name: "sip", Value: sip},
		{Name: "csmethod", Value: req.Method}, {Name: "csuristem", Value: req.URL.Path}, {Name: "csuriquery", Value: dash(req.URL.RawQuery)},
		{Name: "scstatus", Value: strconv.Itoa(status)}, {Name: "scwin32status", Value: "0"},
		{Name: "scbytes", Value: strconv.FormatInt(sent, 10)}, {Name: "csbytes", Value: strconv.FormatInt(received, 10)},
		{Name: "timetaken", Value: strconv.FormatInt(now.Sub(started).Milliseconds(), 10)}, {Name: "sport", Value: sport},
		{Name: "csUserAgent", Value: dash(req.UserAgent())}, {Name: "csCookie", Value: dash(req.Header.Get("Cookie"))},
		{Name: "csReferer", Value: dash(req.Referer())}, {Name: "csversion", Value: req.Proto}, {Name: "cshost", Value: dash(req.Host)},
		{Name: "scsubstatus", Value: "0"}, {Name: "CustomFields", Value: ""},
	}})
}
