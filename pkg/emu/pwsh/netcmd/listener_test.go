package netcmd_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// System.Net.HttpListener before it listens: its properties, its
// Prefixes collection (added once each, removable), and the
// ArgumentExceptions HttpListenerPrefixCollection.Add throws for a bad
// prefix, worded as .NET Framework (5.1) and .NET (7) word them.
func TestHttpListenerObject(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{"$l = New-Object System.Net.HttpListener; $l.IsListening; $l.AuthenticationSchemes; $l.IgnoreWriteExceptions; $l.Prefixes.Count",
			lines("False", "Anonymous", "False", "0")},
		{"$l = [System.Net.HttpListener]::new(); $l.Prefixes.Add('http://*:8080/'); $l.Prefixes.Add('http://+:80/app/'); $l.Prefixes.Count; $l.Prefixes -join ' '",
			lines("2", "http://*:8080/ http://+:80/app/")},
		{"$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:80/'); $l.Prefixes.Add('http://*:80/'); $l.Prefixes.Count", lines("1")},
		{"$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:80/'); $l.Prefixes.Remove('http://*:80/') | Out-Null; $l.Prefixes.Count", lines("0")},
		{"$l = New-Object System.Net.HttpListener; $l.IgnoreWriteExceptions = $true; $l.IgnoreWriteExceptions", lines("True")},
		{"$l = New-Object System.Net.HttpListener; $l.GetType().FullName; $l.Prefixes.GetType().FullName", lines("System.Net.HttpListener", "System.Net.HttpListenerPrefixCollection")},
	} {
		if r := pwshtest.Run(pwshtest.Sys(), c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}

func TestHttpListenerErrors(t *testing.T) {
	for _, c := range []struct {
		script, err string
		pwsh7       bool
	}{
		{script: "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('ftp://x/')",
			err: "Exception calling \"Add\" with \"1\" argument(s): \"Only Uri prefixes starting with 'http://' or 'https://' are supported.\r\nParameter name: uriPrefix\""},
		{script: "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:80')",
			err: "Exception calling \"Add\" with \"1\" argument(s): \"Only Uri prefixes ending in '/' are allowed.\r\nParameter name: uriPrefix\""},
		{script: "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://:80/')",
			err: "Exception calling \"Add\" with \"1\" argument(s): \"Only Uri prefixes with a valid hostname are supported.\r\nParameter name: uriPrefix\""},
		{script: "$l = [System.Net.HttpListener]::new(); $l.Prefixes.Add('http://*:80')", pwsh7: true,
			err: "MethodInvocationException: Exception calling \"Add\" with \"1\" argument(s): \"Only Uri prefixes ending in '/' are allowed. (Parameter 'uriPrefix')\""},
		{script: "$l = New-Object System.Net.HttpListener; $l.GetContext()",
			err: "Exception calling \"GetContext\" with \"0\" argument(s): \"Please call the Start() method before calling this method.\""},
		{script: "$l = New-Object System.Net.HttpListener; $l.Close(); $l.Start()",
			err: "Exception calling \"Start\" with \"0\" argument(s): \"Cannot access a disposed object.\r\nObject name: 'System.Net.HttpListener'.\""},
		{script: "$l = New-Object System.Net.HttpListener; $l.IsListening = $true", err: "'IsListening' is a ReadOnly property."},
		{script: "$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('https://*:443/')", err: "not emulated: an https:// prefix of HttpListener"},
		{script: "$l = New-Object System.Net.HttpListener; $l.AuthenticationSchemes = 'Ntlm'", err: "not emulated: HttpListener.AuthenticationSchemes Ntlm"},
	} {
		run := pwshtest.Run
		if c.pwsh7 {
			run = pwshtest.Run7
		}
		if r := run(pwshtest.Sys(), c.script); r.Code != 1 || !strings.Contains(r.Err, c.err) {
			t.Errorf("%s:\n%q (%d)\nwant %q", c.script, r.Err, r.Code, c.err)
		}
	}
}
