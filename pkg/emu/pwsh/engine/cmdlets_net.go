package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

func init() {
	register("Invoke-WebRequest", "iwr curl wget", invokeWebRequest, p("Uri", 0), sw("UseBasicParsing"), n("Method"), n("TimeoutSec"), n("OutFile"), sw("SkipCertificateCheck"), n("Headers"))
	register("Invoke-RestMethod", "irm", invokeWebRequest, p("Uri", 0), sw("UseBasicParsing"), n("Method"), n("TimeoutSec"), n("OutFile"), sw("SkipCertificateCheck"), n("Headers"))
	register("Test-NetConnection", "tnc", testNetConnection, p("ComputerName", 0, "RemoteAddress", "cn"), p("Port", 1, "RemotePort"), n("CommonTCPPort"), sw("InformationLevel"))
	register("Resolve-DnsName", "", resolveDNSName, p("Name", 0), p("Type", 1), n("Server"))
}

func invokeWebRequest(ctx context.Context, c *call) error {
	uri := c.str("Uri")
	secs, _ := toInt(c.get("TimeoutSec"))
	resp, err := winutil.Get(ctx, c.i.sys, winutil.Request{Method: strings.ToUpper(c.str("Method")), URL: uri,
		Insecure: c.flag("SkipCertificateCheck"), Timeout: time.Duration(secs) * time.Second})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return c.webError(err, uri)
	}
	if resp.StatusCode >= 400 {
		msg := string(resp.Body)
		if msg == "" || c.i.pwsh7 {
			msg = fmt.Sprintf("The remote server returned an error: (%d) %s.", resp.StatusCode, strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "))
			if c.i.pwsh7 {
				msg = fmt.Sprintf("Response status code does not indicate success: %s.", resp.Status)
			}
		}
		return c.fail(msg, "InvalidOperation", "System.Net.HttpWebRequest:HttpWebRequest", "WebException", "WebCmdletWebResponseException")
	}
	if c.has("OutFile") {
		return c.i.writeFile(c.i.abs(c.str("OutFile")), resp.Body, false)
	}
	if strings.EqualFold(c.cl.name, "Invoke-RestMethod") {
		c.emit(string(resp.Body))
		return nil
	}
	c.emit(webResponse(resp))
	return nil
}

func (c *call) webError(err error, uri string) error {
	host := winutil.Host(uri)
	msg := "Unable to connect to the remote server"
	switch {
	case errors.Is(err, winutil.ErrURL):
		msg = "Invalid URI: The hostname could not be parsed."
	case errors.Is(err, winutil.ErrResolve) && c.i.pwsh7:
		msg = "No such host is known. (" + host + ")"
	case errors.Is(err, winutil.ErrResolve):
		msg = "The remote name could not be resolved: '" + host + "'"
	case errors.Is(err, winutil.ErrTimeout):
		msg = "The operation has timed out."
	case errors.Is(err, winutil.ErrTLS):
		msg = "The underlying connection was closed: Could not establish trust relationship for the SSL/TLS secure channel."
	case c.i.pwsh7:
		msg = "No connection could be made because the target machine actively refused it."
	}
	return c.fail(msg, "InvalidOperation", "System.Net.HttpWebRequest:HttpWebRequest", "WebException", "WebCmdletWebResponseException")
}

func webResponse(r *winutil.Response) *object {
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
	headers := newHashtable()
	for _, k := range keys {
		headers.set(k, strings.Join(r.Header[k], ", "))
	}
	o := newObject("Microsoft.PowerShell.Commands.BasicHtmlWebResponseObject",
		"StatusCode", r.StatusCode, "StatusDescription", strings.TrimPrefix(r.Status, strconv.Itoa(r.StatusCode)+" "),
		"Content", string(r.Body), "RawContent", raw.String(), "Forms", "{}", "Headers", headers,
		"Images", "{}", "InputFields", "{}", "Links", "{}", "ParsedHtml", nil, "RawContentLength", len(r.Body))
	o.set("HeadersText", "{"+strings.Join(hdrs, ", ")+"}")
	return o
}

func testNetConnection(ctx context.Context, c *call) error {
	host := c.str("ComputerName")
	if host == "" {
		host = "internetbeacon.msedge.net"
	}
	port, hasPort := toInt(c.get("Port"))
	if strings.EqualFold(c.str("CommonTCPPort"), "HTTP") {
		port, hasPort = 80, true
	}
	hasPort = hasPort && c.has("Port") || c.has("CommonTCPPort")
	addrs, err := c.i.lookup(ctx, host)
	if err != nil {
		fmt.Fprintf(c.i.hostOut, "WARNING: Name resolution of %s failed%s", host, NL)
		c.emit(newObject("TestNetConnectionResult", "ComputerName", host, "RemoteAddress", nil, "InterfaceAlias", nil,
			"SourceAddress", nil, "PingSucceeded", false))
		return nil
	}
	src := winutil.PodIP(c.i.sys)
	o := newObject("TestNetConnectionResult", "ComputerName", host, "RemoteAddress", addrs[0])
	if !hasPort {
		pinged := c.i.sys.Net != nil
		if pinged {
			conn, err := c.i.sys.Net.Dial(ctx, "icmp", addrs[0])
			if pinged = err == nil; pinged {
				conn.Close()
			}
		}
		if !pinged {
			fmt.Fprintf(c.i.hostOut, "WARNING: Ping to %s failed with status: TimedOut%s", addrs[0], NL)
		}
		o.set("InterfaceAlias", "vEthernet (Ethernet)")
		o.set("SourceAddress", src)
		o.set("PingSucceeded", pinged)
		if pinged {
			o.set("PingReplyDetails (RTT)", "0 ms")
		}
		c.emit(o)
		return nil
	}
	ok := false
	if c.i.sys.Net != nil {
		conn, err := c.i.sys.Net.Dial(ctx, "tcp", net.JoinHostPort(addrs[0], strconv.Itoa(port)))
		if err == nil {
			conn.Close()
			ok = true
		}
	}
	if !ok {
		fmt.Fprintf(c.i.hostOut, "WARNING: TCP connect to (%s : %d) failed%s", addrs[0], port, NL)
	}
	o.set("RemotePort", port)
	o.set("InterfaceAlias", "vEthernet (Ethernet)")
	o.set("SourceAddress", src)
	o.set("TcpTestSucceeded", ok)
	c.emit(o)
	return nil
}

func resolveDNSName(ctx context.Context, c *call) error {
	name := c.str("Name")
	addrs, err := c.i.lookup(ctx, name)
	if err != nil {
		return c.fail(name+" : DNS name does not exist", "ResourceUnavailable", name, "Win32Exception", "DNS_ERROR_RCODE_NAME_ERROR")
	}
	for _, a := range addrs {
		typ := "A"
		if strings.Contains(a, ":") {
			typ = "AAAA"
		}
		c.emit(newObject("Microsoft.DnsClient.Commands.DnsRecord", "Name", name, "Type", typ, "TTL", 5, "Section", "Answer", "IPAddress", a))
	}
	return nil
}
