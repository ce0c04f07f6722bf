package podstatus

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestWindowsCPULimit(t *testing.T) {
	cases := []struct {
		limit string
		cpus  int64
		want  int64
	}{
		{"500m", 4, 500},
		{"333m", 4, 332}, // 10*333/4 = 832 → 832*4/10
		{"1", 0, 1000},
	}
	for _, c := range cases {
		if got := windowsCPULimit(resource.MustParse(c.limit), c.cpus); got.MilliValue() != c.want {
			t.Errorf("%s on %d cpus: %dm, want %dm", c.limit, c.cpus, got.MilliValue(), c.want)
		}
	}
}
