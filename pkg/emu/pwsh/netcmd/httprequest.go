package netcmd

import (
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/streams"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// newListenerContext is the HttpListenerContext GetContext returns.
func newListenerContext(ex *exchange, i *engine.Interp, ignoreWrites bool) values.NetObject {
	resp := newListenerResponse(ex, i)
	resp.ignore = ignoreWrites
	return values.NewRecord("System.Net.HttpListenerContext", "",
		"Request", newListenerRequest(ex), "Response", resp, "User", nil)
}

// newListenerRequest is an HttpListenerRequest: everything the request
// says, read when it arrived.
func newListenerRequest(ex *exchange) *values.Record {
	req := ex.req
	headers := values.NewNameValues(false)
	for _, line := range headerLines(req) {
		headers.Add(line[0], line[1])
	}
	u := requestURL(ex)
	query := values.NewNameValues(false)
	for _, kv := range strings.Split(strings.TrimPrefix(u.RawQuery, "?"), "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		k, _ = url.QueryUnescape(k)
		v, _ = url.QueryUnescape(v)
		query.Add(k, v)
	}
	var referrer any
	if ref, err := url.Parse(req.Referer()); err == nil && req.Referer() != "" {
		referrer = newURI(ref)
	}
	contentType := any(nil)
	if ct := req.Header.Get("Content-Type"); ct != "" {
		contentType = ct
	}
	return values.NewRecord("System.Net.HttpListenerRequest", "",
		"AcceptTypes", splitList(req.Header.Get("Accept")),
		"ContentEncoding", streams.Encodings["utf8"],
		"ContentLength64", int(max(req.ContentLength, 0)),
		"ContentType", contentType,
		"Cookies", []any{},
		"HasEntityBody", len(ex.body) > 0,
		"Headers", headers,
		"HttpMethod", req.Method,
		"InputStream", &streams.MemStream{Dotnet: values.Dotnet{Typ: "System.Net.HttpRequestStream"}, Data: ex.body},
		"IsAuthenticated", false,
		"IsLocal", ex.remote.IP.IsLoopback(),
		"IsSecureConnection", false,
		"IsWebSocketRequest", strings.EqualFold(req.Header.Get("Upgrade"), "websocket"),
		"KeepAlive", !req.Close,
		"LocalEndPoint", endPoint(ex.local),
		"ProtocolVersion", values.NewRecord("System.Version", strconv.Itoa(req.ProtoMajor)+"."+strconv.Itoa(req.ProtoMinor), "Major", req.ProtoMajor, "Minor", req.ProtoMinor),
		"QueryString", query,
		"RawUrl", req.RequestURI,
		"RemoteEndPoint", endPoint(ex.remote),
		"Url", newURI(u),
		"UrlReferrer", referrer,
		"UserAgent", nilIfEmpty(req.UserAgent()),
		"UserHostAddress", ex.local.String(),
		"UserHostName", req.Host,
		"UserLanguages", splitList(req.Header.Get("Accept-Language")))
}

// headerLines are the request's headers, Host first (Go keeps it
// apart), then by name: the order they came in is not kept.
func headerLines(req *http.Request) [][2]string {
	var out [][2]string
	if req.Host != "" {
		out = append(out, [2]string{"Host", req.Host})
	}
	names := make([]string, 0, len(req.Header))
	for n := range req.Header {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range req.Header[n] {
			out = append(out, [2]string{n, v})
		}
	}
	return out
}

// requestURL is the request's address as .NET builds Url: http, the
// Host header (else the local address) and the raw path.
func requestURL(ex *exchange) *url.URL {
	host := ex.req.Host
	if host == "" {
		host = ex.local.String()
	}
	raw := ex.req.RequestURI
	if !strings.HasPrefix(raw, "/") {
		raw = ex.req.URL.RequestURI()
	}
	u, err := url.Parse("http://" + host + raw)
	if err != nil {
		return &url.URL{Scheme: "http", Host: host, Path: ex.req.URL.Path}
	}
	return u
}

// newURI is a System.Uri.
func newURI(u *url.URL) *values.Record {
	port, def := 80, true
	switch {
	case u.Port() != "":
		port, _ = strconv.Atoi(u.Port())
		def = port == 80 && u.Scheme == "http" || port == 443 && u.Scheme == "https"
	case u.Scheme == "https":
		port = 443
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address, as Uri.Host gives it
	}
	authority := host
	if !def {
		authority += ":" + strconv.Itoa(port)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	query := ""
	if u.RawQuery != "" {
		query = "?" + u.RawQuery
	}
	abs := u.Scheme + "://" + authority + path + query
	local, _ := url.PathUnescape(path)
	return values.NewRecord("System.Uri", abs,
		"AbsolutePath", path, "AbsoluteUri", abs, "LocalPath", local, "Authority", authority,
		"Host", host, "DnsSafeHost", host, "Port", port, "IsDefaultPort", def, "Scheme", u.Scheme,
		"PathAndQuery", path+query, "Query", query, "Fragment", "", "Segments", uriSegments(path),
		"OriginalString", u.String(), "IsAbsoluteUri", true, "IsLoopback", host == "localhost" || net.ParseIP(host).IsLoopback(),
		"UserInfo", "")
}

// uriSegments is Uri.Segments: "/a/b" gives "/", "a/", "b".
func uriSegments(path string) []any {
	out := []any{"/"}
	rest := strings.TrimPrefix(path, "/")
	for rest != "" {
		k := strings.IndexByte(rest, '/')
		if k < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:k+1])
		rest = rest[k+1:]
	}
	return out
}

func endPoint(a *net.TCPAddr) *values.Record {
	ip := a.IP.String()
	family := "InterNetwork"
	if a.IP.To4() == nil {
		family = "InterNetworkV6"
	}
	addr := values.NewRecord("System.Net.IPAddress", ip, "IPAddressToString", ip, "AddressFamily", family)
	return values.NewRecord("System.Net.IPEndPoint", a.String(), "Address", addr, "Port", a.Port, "AddressFamily", family)
}

// splitList is a comma-separated header as a string[] ($null when absent).
func splitList(s string) any {
	if s == "" {
		return nil
	}
	var out []any
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
