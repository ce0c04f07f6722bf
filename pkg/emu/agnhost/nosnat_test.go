package agnhost

import (
	"context"
	"testing"
)

// no-snat-test asks each pod's /whoami which address it saw; the proxy
// relays a /checknosnat to such a pod and returns its answer.
func TestNoSnat(t *testing.T) {
	base := runtimeGoroutines()
	n := &lan{names: map[string]string{}, ls: map[string]*pipeListener{}}
	pods := []struct {
		ip, podIP, port string
		args            []string
	}{
		{"10.0.0.2", "10.0.0.2", "8080", []string{"no-snat-test"}},
		{"10.0.0.3", "10.0.0.3", "8080", []string{"no-snat-test"}},
		{"10.0.1.5", "10.0.1.5", "31235", []string{"no-snat-test-proxy"}},
		{"192.168.0.1", "10.0.0.7", "8080", []string{"no-snat-test"}},
	}
	var stops []func() int
	for _, pod := range pods {
		e := newEnv(nil, append([]string{"/agnhost"}, pod.args...)...)
		e.p.Env = []string{"POD_IP=" + pod.podIP, "NODE_IP=192.168.0.1"}
		e.p.Sys.Net = n.host(pod.ip)
		stops = append(stops, e.start())
		n.waitListen(t, pod.ip+":"+pod.port)
	}
	checks := []struct {
		from, url string
		code      int
		body      string
	}{
		{"10.0.0.9", "http://10.0.0.2:8080/whoami", 200, "10.0.0.9:40000"},
		{"10.0.0.9", "http://10.0.1.5:31235/checknosnat?target=10.0.0.2:8080&ips=10.0.0.3:8080", 200, ""},
		// The pod whose traffic leaves from its node's address is told
		// so.
		{"10.0.0.9", "http://192.168.0.1:8080/checknosnat?ips=10.0.0.2:8080,10.0.0.3:8080", 500,
			`Returned ip "192.168.0.1" != my Pod ip "10.0.0.7", == my Node ip "192.168.0.1" - SNAT, ` +
				`Returned ip "192.168.0.1" != my Pod ip "10.0.0.7", == my Node ip "192.168.0.1" - SNAT`},
		{"10.0.0.9", "http://10.0.1.5:31235/checknosnat?target=10.0.0.2:8080&ips=10.0.0.3:9999", 500, `Get "http://10.0.0.3:9999/whoami": dial tcp 10.0.0.3:9999: connect: connection refused`},
		{"10.0.0.9", "http://10.0.1.5:31235/checknosnat?target=10.0.0.2:1", 500, `error querying "http://10.0.0.2:1/checknosnat?ips=", err: Get "http://10.0.0.2:1/checknosnat?ips=": dial tcp 10.0.0.2:1: connect: connection refused`},
	}
	for _, c := range checks {
		if code, body := lanGet(t, n, c.from, c.url); code != c.code || body != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.url, code, body, c.code, c.body)
		}
	}
	for _, stop := range stops {
		if code := stop(); code != 0 {
			t.Errorf("status %d", code)
		}
	}
	settleGoroutines(t, base)

	e := newEnv(nil, "/agnhost", "no-snat-test")
	e.p.Env = []string{"POD_IP=10.0.0.2", "NODE_IP=node"}
	if code := e.run(t, context.Background()); code != 1 || e.stderr.String() != "NODE_IP env var contained \"node\", which is not an IP address\n" {
		t.Errorf("status %d stderr %q", code, e.stderr)
	}
}
