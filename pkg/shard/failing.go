package shard

// failed says "what: err" once, until worked(what) says it works again: a
// replica cut off from the API server retries every RetryPeriod, and one
// line per retry would bury the line that matters.
func (m *manager) failed(what string, err error) {
	m.sayMu.Lock()
	first := !m.failing[what]
	m.failing[what] = true
	m.sayMu.Unlock()
	if first {
		m.say("%s: %v", what, err)
	}
}

// worked ends a failure that failed reported, and says so.
func (m *manager) worked(what string) {
	m.sayMu.Lock()
	was := m.failing[what]
	delete(m.failing, what)
	m.sayMu.Unlock()
	if was {
		m.say("%s: works again", what)
	}
}

// settled forgets a failure without a word: what failed has ended.
func (m *manager) settled(what string) {
	m.sayMu.Lock()
	defer m.sayMu.Unlock()
	delete(m.failing, what)
}
