package controlplane

import (
	"context"
	"fmt"
	"time"
)

// restartPolicy says how a component that died is restarted, as the
// kubelet restarts a static pod's container: after a back-off that
// doubles from backoff up to maxBackoff. A component that exits max times
// in a row without becoming healthy in between is given up on, and the
// control plane fails with its last log lines.
type restartPolicy struct {
	backoff, maxBackoff time.Duration
	max                 int
	// readyTimeout bounds one attempt's wait for health. A component that
	// ran before comes back in seconds; Start's readyTimeout of minutes,
	// five times over, would leave a hung one unreported for half an hour.
	readyTimeout time.Duration
}

// restarts is the policy Start gives each control plane; a variable only
// so that the package's tests can shorten it.
var restarts = restartPolicy{backoff: time.Second, maxBackoff: 30 * time.Second, max: 5, readyTimeout: time.Minute}

// superviseChild watches the i-th component. An exit before the control
// plane is Ready fails it (a start must fail fast and say why); an exit
// after is answered by restarts with back-off. Exits that Close causes
// are expected.
func (c *ControlPlane) superviseChild(i int, comp component, ch *child) {
	defer c.wg.Done()
	for {
		select {
		case <-ch.exited:
		case <-c.closing:
			return
		}
		select {
		case <-c.ready:
		default:
			c.failUnlessClosing(ch.exitError())
			return
		}
		next, err := c.restart(i, comp, ch)
		if err != nil {
			c.failUnlessClosing(err)
			return
		}
		if next == nil {
			return // closing
		}
		ch = next
	}
}

// restart brings the i-th component back after dead exited: it says so
// once, then starts it again until it is healthy, waiting longer after
// each failed attempt. It returns the healthy child, or nil when Close
// began meanwhile.
func (c *ControlPlane) restart(i int, comp component, dead *child) (*child, error) {
	c.notice(fmt.Sprintf("%s exited (%v); restarting it (log: %s)", comp.name, dead.waitErr, dead.logPath))
	p := c.restarts
	began, backoff := time.Now(), p.backoff
	for attempt := 1; ; attempt++ {
		select {
		case <-c.closing:
			return nil, nil
		case <-time.After(backoff):
		}
		ch, err := c.startReplacement(i, comp)
		if ch == nil || err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.readyTimeout)
		err = c.waitHealthy(ctx, comp, ch)
		cancel()
		if err == nil {
			c.notice(fmt.Sprintf("%s is running again after %s", comp.name, time.Since(began).Round(100*time.Millisecond)))
			return ch, nil
		}
		if attempt == p.max {
			return nil, gaveUp(comp, ch, attempt, err)
		}
		ch.stop(time.Now().Add(comp.grace)) // a health timeout leaves it running
		backoff = min(2*backoff, p.maxBackoff)
	}
}

// gaveUp is the error of a component that did not come back: it always
// ends with the component's last log lines, where upstream says why.
func gaveUp(comp component, last *child, attempts int, err error) error {
	select {
	case <-last.exited: // err is its exitError, with the lines
		return fmt.Errorf("%s did not come back after %d restarts: %w", comp.name, attempts, err)
	default:
	}
	last.stop(time.Now().Add(comp.grace))
	return fmt.Errorf("%s did not come back after %d restarts: %w; last lines of %s:\n%s",
		comp.name, attempts, err, last.logPath, tail(last.logPath, 15))
}

// startReplacement starts the i-th component again in place of the old
// process, unless Close has begun (then it returns nil, nil): Close stops
// the children it finds under mu, so none may start after it looked.
func (c *ControlPlane) startReplacement(i int, comp component) (*child, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closing:
		return nil, nil
	default:
	}
	ch, err := startChild(c.l.opts.Executable, comp.name, componentArgs(c.l, comp), componentEnv(c.l.opts.Nodes), c.l.logFile(comp.name), comp.grace, true)
	if err != nil {
		return nil, fmt.Errorf("restarting %s: %w", comp.name, err)
	}
	c.children[i] = ch
	return ch, nil
}

func (c *ControlPlane) notice(line string) {
	if c.l.opts.Notice != nil {
		c.l.opts.Notice(line)
	}
}
