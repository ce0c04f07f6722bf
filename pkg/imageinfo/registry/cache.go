package registry

import (
	"container/list"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// manifestInfo is what the cache keeps about one manifest: enough to build
// an Image for any reference that names it.
type manifestInfo struct {
	digest    string
	platforms []imageinfo.Platform
	index     bool
	// private is set when the registry let the look-up in only with a
	// pull secret: the answer is then cached for that set of secrets
	// alone.
	private bool
}

// cacheEntry is one cached answer. Entries for digests never expire (the
// content behind a digest cannot change); entries for tags and failures do.
type cacheEntry struct {
	key     string
	info    manifestInfo
	err     error     // a failed look-up, kept for Options.ErrorTTL
	expires time.Time // zero: never
}

// cache is a size-bounded LRU of manifest answers keyed by normalised
// reference ("repo:tag" or "repo@digest"), and of recent failures keyed by
// reference and credentials.
type cache struct {
	mu    sync.Mutex
	size  int
	order *list.List // front = most recently used; values are *cacheEntry
	items map[string]*list.Element
}

func newCache(size int) *cache {
	return &cache{size: size, order: list.New(), items: map[string]*list.Element{}}
}

// get returns a fresh entry for key; an expired one is dropped.
func (c *cache) get(key string, now time.Time) (manifestInfo, bool) {
	e, ok := c.entry(key, now)
	return e.info, ok
}

// getErr returns a fresh failure filed by putErr.
func (c *cache) getErr(key string, now time.Time) (error, bool) {
	e, ok := c.entry(key, now)
	return e.err, ok && e.err != nil
}

func (c *cache) entry(key string, now time.Time) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return cacheEntry{}, false
	}
	e := el.Value.(*cacheEntry)
	if !e.expires.IsZero() && !now.Before(e.expires) {
		c.order.Remove(el)
		delete(c.items, key)
		return cacheEntry{}, false
	}
	c.order.MoveToFront(el)
	return *e, true
}

// put stores info under key, evicting the least recently used entries
// beyond the size bound.
func (c *cache) put(key string, info manifestInfo, expires time.Time) {
	c.store(&cacheEntry{key: key, info: info, expires: expires})
}

// putErr files a failed look-up until expires.
func (c *cache) putErr(key string, err error, expires time.Time) {
	c.store(&cacheEntry{key: key, err: err, expires: expires})
}

func (c *cache) store(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[e.key]; ok {
		el.Value = e
		c.order.MoveToFront(el)
		return
	}
	c.items[e.key] = c.order.PushFront(e)
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// len is the number of entries, fresh or not.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
