#!/usr/bin/env bash
# bench-lint.sh: winkube lint's throughput on one core, side by side with
# kubeconform on the same 10,000-object corpus.
#
#   hack/bench-lint.sh                                     # from the repository root
#   WINKUBE=path/to/winkube RUNS=5 hack/bench-lint.sh      # and the whole commands
#
# kubeconform is installed from the Go module proxy into a temporary GOBIN
# (never added to go.mod). It gets JSON schemas generated offline from the
# OpenAPI document that ships in the k8s.io/kubernetes module, so it runs
# without network access and really validates every object's fields.
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=$work/corpus schemas=$work/schemas
mkdir -p "$corpus" "$schemas" "$work/bin"

echo "== corpus"
go run ./hack/lintcorpus -o "$corpus"
docs=$(cat "$corpus"/*.yaml | grep -c '^kind:')
echo "$docs objects in $(ls "$corpus" | wc -l) files"

echo "== winkube lint (GOMAXPROCS=1)"
GOMAXPROCS=1 go test ./pkg/lint -run '^$' -bench '^(BenchmarkLint|BenchmarkLoadAndLint)$' -benchtime 5x -count=1 |
	grep -E '^Benchmark'

echo "== kubeconform (-n 1, GOMAXPROCS=1)"
GOBIN=$work/bin GOFLAGS= go install github.com/yannh/kubeconform/cmd/kubeconform@latest
go version -m "$work/bin/kubeconform" | awk '$1 == "mod" {print $2, $3}'
swagger=$(go list -m -f '{{.Dir}}' k8s.io/kubernetes)/api/openapi-spec/swagger.json
python3 - "$swagger" "$schemas" <<'PY'
# Standalone JSON schemas in kubeconform's layout ({kind}-{group}-{version}.json)
# from the Kubernetes OpenAPI v2 document: $refs inlined (a recursive
# reference becomes "any"), int-or-string and quantities as string|number,
# optional fields nullable, like yannh/kubernetes-json-schema's standalone set.
import json, sys, copy
swagger, out = sys.argv[1], sys.argv[2]
defs = json.load(open(swagger))["definitions"]
NUMERIC = {"io.k8s.apimachinery.pkg.util.intstr.IntOrString", "io.k8s.apimachinery.pkg.api.resource.Quantity"}

def inline(node, stack):
    if isinstance(node, list):
        return [inline(n, stack) for n in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str):
        name = node["$ref"].split("/")[-1]
        if name in NUMERIC:
            return {"anyOf": [{"type": "string"}, {"type": "number"}]}
        if name in stack:
            return {}
        return inline(copy.deepcopy(defs[name]), stack | {name})
    out = {k: inline(v, stack) for k, v in node.items() if not k.startswith("x-kubernetes")}
    if out.get("format") == "int-or-string":
        out = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    if isinstance(out.get("type"), str) and out["type"] in ("object", "array", "string", "integer", "number", "boolean"):
        out["type"] = [out["type"], "null"]
    return out

n = 0
for name, d in defs.items():
    for gvk in d.get("x-kubernetes-group-version-kind", []):
        group = gvk["group"].split(".")[0]
        suffix = "-" + (group + "-" if group else "") + gvk["version"]
        schema = inline(copy.deepcopy(d), {name})
        schema["$schema"] = "http://json-schema.org/schema#"
        with open(f"{out}/{gvk['kind'].lower()}{suffix}.json", "w") as f:
            json.dump(schema, f)
        n += 1
print(f"{n} schemas from {swagger.split('/pkg/mod/')[-1]}")
PY
GOMAXPROCS=1 "$work/bin/kubeconform" -n 1 -summary \
	-schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$corpus" | tail -1

# With WINKUBE=path/to/winkube the whole winkube command (process start,
# loading, linting, writing a JSON report) and the whole kubeconform
# command run RUNS times each, taking turns, so both see the same load.
# CPU time (user+sys) is the steadier figure on a shared machine; the
# ratios compare medians of the same script run.
[[ -n "${WINKUBE:-}" ]] || exit 0
runs=${RUNS:-5}
echo "== whole process, $runs runs each (GOMAXPROCS=1)"
TIMEFORMAT='%R %U %S'
for ((i = 0; i < runs; i++)); do
	t=$({ time GOMAXPROCS=1 "$WINKUBE" lint --fail-on none -o json --output-file "$work/report.json" "$corpus" >/dev/null 2>&1; } 2>&1)
	echo "winkube $t"
	t=$({ time GOMAXPROCS=1 "$work/bin/kubeconform" -n 1 -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$corpus" >/dev/null 2>&1; } 2>&1)
	echo "kubeconform $t"
done | python3 -c '
import sys, statistics as st
docs = int(sys.argv[1])
wall, cpu = {}, {}
for line in sys.stdin:
    tool, real, user, sys_ = line.split()
    wall.setdefault(tool, []).append(float(real))
    cpu.setdefault(tool, []).append(float(user) + float(sys_))
def span(xs):
    return "/".join(f"{docs / x:,.0f}" for x in (max(xs), st.median(xs), min(xs)))
for tool in wall:
    print(f"{tool:12} objects/s, min/median/max: wall {span(wall[tool])}, CPU {span(cpu[tool])}")
for name, d in (("wall", wall), ("CPU", cpu)):
    ratio = st.median(d.get("kubeconform")) / st.median(d.get("winkube"))
    print(f"winkube / kubeconform ({name}, medians): {ratio:.2f} x")
' "$docs"
