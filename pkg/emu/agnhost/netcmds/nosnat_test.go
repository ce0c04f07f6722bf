package netcmds

import (
	"strings"
	"testing"
)

// no-snat-test needs POD_IP and NODE_IP as addresses; its /whoami is the
// client's address and /checknosnat?ips= compares it with POD_IP: a pod
// reaching itself over its loopback shows 127.0.0.1, which is "SNAT to
// an unexpected ip" unless POD_IP says so.
func TestNoSnat(t *testing.T) {
	for env, want := range map[string]string{
		"":                            "POD_IP env var was not present in the environment\n",
		"POD_IP=10.0.0.1":             "NODE_IP env var was not present in the environment\n",
		"POD_IP=x NODE_IP=10.0.0.2":   "POD_IP env var contained \"x\", which is not an IP address\n",
		"POD_IP=10.0.0.1 NODE_IP=y":   "NODE_IP env var contained \"y\", which is not an IP address\n",
		"POD_IP=1.1.1.1 NODE_IP=::1 ": "listen tcp: lookup tcp/nope: unknown port\n",
	} {
		p := newPod()
		args := []string{}
		if strings.HasPrefix(env, "POD_IP=1.1.1.1") {
			args = append(args, "--port=nope")
		}
		r := p.start(t, NoSnatTestSetup, strings.Fields(env), args...)
		if code := r.wait(t); code != 1 || r.stderr.String() != want {
			t.Errorf("env %q: %d %q, want %q", env, code, r.stderr.String(), want)
		}
	}

	p := newPod()
	p.start(t, NoSnatTestSetup, []string{"POD_IP=127.0.0.1", "NODE_IP=10.1.0.1"})
	if _, body := p.get(t, "http://127.0.0.1:8080/whoami"); !strings.HasPrefix(body, "127.0.0.1:") {
		t.Errorf("/whoami = %q", body)
	}
	if resp, body := p.get(t, "http://127.0.0.1:8080/checknosnat?ips=127.0.0.1:8080"); resp.StatusCode != 200 || body != "" {
		t.Errorf("/checknosnat of itself = %d %q", resp.StatusCode, body)
	}

	p = newPod()
	p.start(t, NoSnatTestSetup, []string{"POD_IP=10.244.0.5", "NODE_IP=127.0.0.1"})
	resp, body := p.get(t, "http://127.0.0.1:8080/checknosnat?ips=127.0.0.1:8080")
	if resp.StatusCode != 500 || body != `Returned ip "127.0.0.1" != my Pod ip "10.244.0.5", == my Node ip "127.0.0.1" - SNAT` {
		t.Errorf("/checknosnat seen as the node = %d %q", resp.StatusCode, body)
	}

	// The proxy asks the target's /checknosnat and passes its answer on.
	p.start(t, NoSnatTestProxySetup, nil)
	resp, body = p.get(t, "http://127.0.0.1:31235/checknosnat?target=127.0.0.1:8080&ips=127.0.0.1:8080")
	if resp.StatusCode != 500 || !strings.HasSuffix(body, "- SNAT") {
		t.Errorf("proxy = %d %q", resp.StatusCode, body)
	}
	resp, body = p.get(t, "http://127.0.0.1:31235/checknosnat?target=127.0.0.1:1&ips=x")
	if resp.StatusCode != 500 || !strings.HasPrefix(body, `error querying "http://127.0.0.1:1/checknosnat?ips=x", err: `) {
		t.Errorf("proxy to nothing = %d %q", resp.StatusCode, body)
	}
}
