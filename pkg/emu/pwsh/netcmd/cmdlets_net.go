// Package netcmd is PowerShell's networking: Invoke-WebRequest,
// Test-NetConnection, Resolve-DnsName, the NetIPConfiguration family,
// the NetFirewallRule cmdlets and System.Net.HttpListener with its
// requests and responses. It registers itself with the engine when
// imported.
package netcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

func init() {
	engine.Register("Invoke-WebRequest", "iwr curl wget", invokeWebRequest, engine.P("Uri", 0), engine.Sw("UseBasicParsing"), engine.N("Method"), engine.N("TimeoutSec"), engine.N("OutFile"), engine.Sw("SkipCertificateCheck"), engine.N("Headers"), engine.N("Body"), engine.N("ContentType"))
	engine.Register("Invoke-RestMethod", "irm", invokeWebRequest, engine.P("Uri", 0), engine.Sw("UseBasicParsing"), engine.N("Method"), engine.N("TimeoutSec"), engine.N("OutFile"), engine.Sw("SkipCertificateCheck"), engine.N("Headers"), engine.N("Body"), engine.N("ContentType"))
	engine.Register("Test-NetConnection", "tnc", testNetConnection, engine.P("ComputerName", 0, "RemoteAddress", "cn"), engine.P("Port", 1, "RemotePort"), engine.N("CommonTCPPort"), engine.N("InformationLevel"))
	engine.Register("Resolve-DnsName", "", resolveDNSName, engine.P("Name", 0), engine.P("Type", 1), engine.N("Server"))
}

func invokeWebRequest(ctx context.Context, c *engine.Call) error {
	uri := c.Str("Uri")
	secs, _ := values.ToInt(c.Get("TimeoutSec"))
	req := winutil.Request{Method: strings.ToUpper(c.Str("Method")), URL: uri,
		Insecure: c.Flag("SkipCertificateCheck"), Timeout: time.Duration(secs) * time.Second, Header: http.Header{}}
	// -Headers, -ContentType and -Body go with the request.
	if h, ok := c.Get("Headers").(*values.Hashtable); ok {
		for _, k := range h.Keys {
			v, _ := h.Get(k)
			req.Header.Set(k, values.ToStr(v))
		}
	}
	if c.Has("ContentType") {
		req.Header.Set("Content-Type", c.Str("ContentType"))
	}
	if c.Has("Body") {
		req.Body = []byte(c.Str("Body"))
	}
	resp, err := winutil.Get(ctx, c.I.Sys, req)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return webError(c, err, uri)
	}
	if resp.StatusCode >= 400 {
		msg := string(resp.Body)
		if msg == "" || c.I.Pwsh7 {
			msg = fmt.Sprintf("The remote server returned an error: (%d) %s.", resp.StatusCode, strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "))
			if c.I.Pwsh7 {
				msg = fmt.Sprintf("Response status code does not indicate success: %s.", resp.Status)
			}
		}
		return c.Fail(msg, "InvalidOperation", "System.Net.HttpWebRequest:HttpWebRequest", "WebException", "WebCmdletWebResponseException")
	}
	if c.Has("OutFile") {
		return c.I.WriteFile(c.I.Abs(c.Str("OutFile")), resp.Body, false)
	}
	if strings.EqualFold(c.Cl.Name, "Invoke-RestMethod") {
		// A JSON response is converted to objects (an array's items are
		// written one by one); other text is the body as a string.
		if strings.Contains(resp.Header.Get("Content-Type"), "json") {
			v, err := fromJSON(resp.Body)
			if err != nil {
				return c.Fail("Invalid JSON primitive: "+string(resp.Body), "NotSpecified", "", "ArgumentException", "System.ArgumentException")
			}
			for _, item := range values.ToList(v) {
				c.Emit(item)
			}
			return nil
		}
		c.Emit(string(resp.Body))
		return nil
	}
	c.Emit(webResponse(resp))
	return nil
}

func webError(c *engine.Call, err error, uri string) error {
	host := winutil.Host(uri)
	msg := "Unable to connect to the remote server"
	switch {
	case errors.Is(err, winutil.ErrURL):
		msg = "Invalid URI: The hostname could not be parsed."
	case errors.Is(err, winutil.ErrResolve) && c.I.Pwsh7:
		msg = "No such host is known. (" + host + ")"
	case errors.Is(err, winutil.ErrResolve):
		msg = "The remote name could not be resolved: '" + host + "'"
	case errors.Is(err, winutil.ErrTimeout):
		msg = "The operation has timed out."
	case errors.Is(err, winutil.ErrTLS):
		msg = "The underlying connection was closed: Could not establish trust relationship for the SSL/TLS secure channel."
	case c.I.Pwsh7:
		msg = "No connection could be made because the target machine actively refused it."
	}
	return c.Fail(msg, "InvalidOperation", "System.Net.HttpWebRequest:HttpWebRequest", "WebException", "WebCmdletWebResponseException")
}

func webResponse(r *winutil.Response) *values.Object {
	var raw strings.Builder
	fmt.Fprintf(&raw, "%s %s\n", r.Proto, r.Status)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var hdrs []string
	for _, k := range keys {
		v := strings.Join(r.Header[k], ", ")
		fmt.Fprintf(&raw, "%s: %s\n", k, v)
		hdrs = append(hdrs, "["+k+", "+v+"]")
	}
	raw.WriteString("\n" + string(r.Body))
	headers := values.NewHashtable()
	for _, k := range keys {
		headers.Set(k, strings.Join(r.Header[k], ", "))
	}
	o := values.NewObject("Microsoft.PowerShell.Commands.BasicHtmlWebResponseObject",
		"StatusCode", r.StatusCode, "StatusDescription", strings.TrimPrefix(r.Status, strconv.Itoa(r.StatusCode)+" "),
		"Content", string(r.Body), "RawContent", raw.String(), "Forms", "{}", "Headers", headers,
		"Images", "{}", "InputFields", "{}", "Links", "{}", "ParsedHtml", nil, "RawContentLength", len(r.Body))
	o.Set("HeadersText", "{"+strings.Join(hdrs, ", ")+"}")
	return o
}

func testNetConnection(ctx context.Context, c *engine.Call) error {
	host := c.Str("ComputerName")
	if host == "" {
		host = "internetbeacon.msedge.net"
	}
	port, hasPort := values.ToInt(c.Get("Port"))
	if strings.EqualFold(c.Str("CommonTCPPort"), "HTTP") {
		port, hasPort = 80, true
	}
	hasPort = hasPort && c.Has("Port") || c.Has("CommonTCPPort")
	addrs, err := c.I.Lookup(ctx, host)
	if err != nil {
		fmt.Fprintf(c.I.HostOut, "WARNING: Name resolution of %s failed%s", host, values.NL)
		emitResult(c, values.NewObject("TestNetConnectionResult", "ComputerName", host, "RemoteAddress", nil, "InterfaceAlias", nil,
			"SourceAddress", nil, "PingSucceeded", false), false)
		return nil
	}
	src := winutil.PodIP(c.I.Sys)
	o := values.NewObject("TestNetConnectionResult", "ComputerName", host, "RemoteAddress", addrs[0])
	if !hasPort {
		pinged := c.I.Sys.Net != nil
		if pinged {
			conn, err := c.I.Sys.Net.Dial(ctx, "icmp", addrs[0])
			if pinged = err == nil; pinged {
				conn.Close()
			}
		}
		if !pinged {
			fmt.Fprintf(c.I.HostOut, "WARNING: Ping to %s failed with status: TimedOut%s", addrs[0], values.NL)
		}
		o.Set("InterfaceAlias", "vEthernet (Ethernet)")
		o.Set("SourceAddress", src)
		o.Set("PingSucceeded", pinged)
		if pinged {
			o.Set("PingReplyDetails (RTT)", "0 ms")
		}
		emitResult(c, o, pinged)
		return nil
	}
	ok := false
	if c.I.Sys.Net != nil {
		conn, err := c.I.Sys.Net.Dial(ctx, "tcp", net.JoinHostPort(addrs[0], strconv.Itoa(port)))
		if err == nil {
			conn.Close()
			ok = true
		}
	}
	if !ok {
		fmt.Fprintf(c.I.HostOut, "WARNING: TCP connect to (%s : %d) failed%s", addrs[0], port, values.NL)
	}
	o.Set("RemotePort", port)
	o.Set("InterfaceAlias", "vEthernet (Ethernet)")
	o.Set("SourceAddress", src)
	o.Set("TcpTestSucceeded", ok)
	emitResult(c, o, ok)
	return nil
}

// emitResult is Test-NetConnection's output: the result object, or with
// -InformationLevel Quiet only whether the test succeeded.
func emitResult(c *engine.Call, o *values.Object, ok bool) {
	if strings.EqualFold(c.Str("InformationLevel"), "Quiet") {
		c.Emit(ok)
		return
	}
	c.Emit(o)
}

func resolveDNSName(ctx context.Context, c *engine.Call) error {
	name := c.Str("Name")
	addrs, err := c.I.Lookup(ctx, name)
	if err != nil {
		return c.Fail(name+" : DNS name does not exist", "ResourceUnavailable", name, "Win32Exception", "DNS_ERROR_RCODE_NAME_ERROR")
	}
	for _, a := range addrs {
		typ := "A"
		if strings.Contains(a, ":") {
			typ = "AAAA"
		}
		c.Emit(values.NewObject("Microsoft.DnsClient.Commands.DnsRecord", "Name", name, "Type", typ, "TTL", 5, "Section", "Answer", "IPAddress", a))
	}
	return nil
}
