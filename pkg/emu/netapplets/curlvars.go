package netapplets

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// variables are -w's %{name} values for one transfer.
func (c *curlRun) variables(resp *winutil.Response, rawURL string, code int, errmsg string) map[string]string {
	secs := fmt.Sprintf("%.6f", c.took.Seconds())
	v := map[string]string{
		"http_code": "000", "response_code": "000", "http_version": "0", "exitcode": strconv.Itoa(code),
		"errormsg": errmsg, "url": rawURL, "url_effective": c.final, "num_redirects": strconv.Itoa(c.redirs),
		"size_download": "0", "size_header": "0", "size_upload": "0", "size_request": "0",
		"time_total": secs, "time_connect": secs, "time_namelookup": secs, "time_pretransfer": secs,
		"time_starttransfer": secs, "time_appconnect": "0.000000", "time_redirect": "0.000000",
		"content_type": "", "redirect_url": "", "ssl_verify_result": "0", "method": "GET",
		"remote_ip": "", "remote_port": winutil.Port(rawURL), "scheme": "http", "filename_effective": "",
		"speed_download": "0", "speed_upload": "0", "num_connects": "0",
	}
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		v["scheme"] = strings.ToLower(u.Scheme)
	}
	if m, ok := c.o.Value("request"); ok {
		v["method"] = m
	} else if c.o.Has("head") {
		v["method"] = "HEAD"
	}
	if name := c.target(rawURL); name != "-" {
		v["filename_effective"] = name
	}
	if resp == nil {
		return v
	}
	status := fmt.Sprintf("%03d", resp.StatusCode)
	v["http_code"], v["response_code"], v["num_connects"] = status, status, "1"
	v["http_version"] = strings.TrimPrefix(strings.TrimSuffix(resp.Proto, ".0"), "HTTP/")
	v["size_download"] = strconv.Itoa(len(resp.Body))
	v["size_header"] = strconv.Itoa(len(headerText(resp)))
	v["content_type"] = resp.Header.Get("Content-Type")
	if loc := resp.Header.Get("Location"); loc != "" {
		if base, err := url.Parse(c.final); err == nil {
			if abs, err := base.Parse(loc); err == nil {
				v["redirect_url"] = abs.String()
			}
		}
	}
	if c.took > 0 {
		v["speed_download"] = strconv.Itoa(int(float64(len(resp.Body)) / c.took.Seconds()))
	}
	if ip, err := lookup(c.ctx, c.p, winutil.Host(rawURL)); err == nil {
		v["remote_ip"] = ip
	}
	return v
}
