package netcmds

import (
	"testing"
	"time"
)

// guestbook: a backend (here the primary and its replica in one) keeps
// the store on /set and /get; the frontend's /guestbook sends set to
// agnhost-primary and get to agnhost-replica on --backend-port.
func TestGuestbookFrontendAndBackend(t *testing.T) {
	p := newPod()
	p.start(t, GuestbookSetup, nil, "--http-port=6379")
	p.start(t, GuestbookSetup, nil, "--http-port=80", "--backend-port=6379")
	cases := []struct {
		url, body string
		status    int
	}{
		{"http://127.0.0.1:80/guestbook?cmd=set&key=messages&value=hello", `{"message":"Updated"}`, 200},
		{"http://127.0.0.1:80/guestbook?cmd=GET&key=messages", `{"data":"hello"}`, 200},
		{"http://127.0.0.1:80/guestbook?cmd=get&key=none", `{"data":""}`, 200},
		{"http://127.0.0.1:80/guestbook?cmd=del&key=messages", "unsupported cmd: 'del'\n", 400},
		{"http://127.0.0.1:80/guestbook?cmd=set", "cannot set with empty key.\n", 400},
		{"http://127.0.0.1:6379/get", `{"data":{"messages":"hello"}}`, 200},
		{"http://127.0.0.1:6379/set?value=x", "cannot set with empty key.\n", 400},
		{"http://127.0.0.1:6379/register?host=10.9.9.9", `{"data":{"messages":"hello"}}`, 200},
		// The registered replica cannot be reached: set fails to propagate.
		{"http://127.0.0.1:6379/set?key=a&value=b", "encountered error while propagating to replica '10.9.9.9': " +
			"Get \"http://10.9.9.9:6379/set?key=a&value=b\": dial tcp 10.9.9.9:6379: connect: network is unreachable\n", 417},
	}
	for _, c := range cases {
		resp, body := p.get(t, c.url)
		if resp.StatusCode != c.status || body != c.body {
			t.Errorf("GET %s = %d %q, want %d %q", c.url, resp.StatusCode, body, c.status, c.body)
		}
	}
	// A backend port that is no port fails the lookup, as
	// net.ResolveTCPAddr does.
	q := newPod()
	q.start(t, GuestbookSetup, nil, "--http-port=80", "--backend-port=redis")
	if resp, body := q.get(t, "http://127.0.0.1:80/guestbook?cmd=get&key=k"); resp.StatusCode != 400 ||
		body != "host and/or port param are invalid. lookup tcp/redis: unknown port\n" {
		t.Errorf("bad backend port = %d %q", resp.StatusCode, body)
	}
}

// A replica that cannot reach its primary retries each second and gives
// up after 15 seconds of the container's clock with log.Fatal's status.
func TestGuestbookReplicaGivesUp(t *testing.T) {
	p := newPod()
	r := p.start(t, GuestbookSetup, nil, "--http-port=6380", "--replicaof=nosuch")
	deadline := time.After(30 * time.Second)
	for {
		select {
		case code := <-r.done:
			r.done <- code
			if code != 1 {
				t.Errorf("status %d, want 1", code)
			}
			r.logged(t, "unable to get IP nosuch:6379: dial udp: lookup nosuch: no such host. Retrying in 1s.")
			r.logged(t, "Timed out while registering to primary.")
			return
		case <-deadline:
			t.Fatalf("the replica did not give up:\n%s", r.stderr)
		default:
		}
		if p.clock.HasWaiters() {
			p.clock.Step(time.Second)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

func TestGuestbookBadPort(t *testing.T) {
	p := newPod()
	r := p.start(t, GuestbookSetup, nil, "--http-port=web")
	if code := r.wait(t); code != 1 {
		t.Errorf("status %d", code)
	}
	r.logged(t, "listen tcp: lookup tcp/web: unknown port")
	if _, err := parsePort("tcp", "70000"); err == nil || err.Error() != "address 70000: invalid port" {
		t.Errorf("parsePort(70000) = %v", err)
	}
}
