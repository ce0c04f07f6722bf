package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Blocks are contiguous, cover every name once and differ in size by at
// most one, so kubelet ports numbered by position stay contiguous.
func TestSplitContiguous(t *testing.T) {
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("n%02d", i))
	}
	blocks := Split(names, 4)
	var joined []string
	for i, b := range blocks {
		if len(b) < 2 || len(b) > 3 {
			t.Errorf("block %d has %d names, want 2 or 3", i, len(b))
		}
		if len(b) > 0 && b[0] != names[Offset(len(names), 4, i)] {
			t.Errorf("block %d starts at %s, want offset %d", i, b[0], Offset(len(names), 4, i))
		}
		joined = append(joined, b...)
	}
	if !slices.Equal(joined, names) {
		t.Errorf("blocks %v do not cover %v in order", blocks, names)
	}
}

// Shares add up to the shard count whatever the replicas, and a lone
// replica takes everything.
func TestShareAddsUp(t *testing.T) {
	for shards := 1; shards <= 9; shards++ {
		for count := 1; count <= 5; count++ {
			sum := 0
			for r := range count {
				sum += share(shards, count, r)
			}
			if sum != shards {
				t.Errorf("share(%d, %d, *) adds up to %d", shards, count, sum)
			}
		}
	}
	if share(4, 2, 0) != 2 || share(4, 2, 1) != 2 || share(4, 1, 0) != 4 {
		t.Error("2 replicas must split 4 shards 2/2 and one must take all 4")
	}
}

func TestValidateNamesTheField(t *testing.T) {
	base := Options{Client: nil, Shards: 2, Group: "g", Identity: "a", LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond}
	cases := map[string]func(o *Options){
		"RenewDeadline": func(o *Options) { o.RenewDeadline = 2 * time.Second },
		"RetryPeriod":   func(o *Options) { o.RetryPeriod = time.Second },
		"Shards":        func(o *Options) { o.Shards = 0 },
		"Identity":      func(o *Options) { o.Identity = "Not_A_Name" },
	}
	for field, change := range cases {
		o := base
		o.Client = fakeClient()
		o.Start = nopStart
		change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming the field", field, err)
		}
	}
}
