{{/* The name of every object. */}}
{{- define "winkube-nodes.name" -}}
{{- default .Release.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "winkube-nodes.selectorLabels" -}}
app.kubernetes.io/name: winkube-nodes
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "winkube-nodes.labels" -}}
{{ include "winkube-nodes.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "winkube-nodes.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* The cluster config the agent reads: the pools of the values. */}}
{{- define "winkube-nodes.config" -}}
{{ toYaml (dict "apiVersion" "winkube.io/v1alpha1" "kind" "Cluster" "nodePools" .Values.nodePools) }}
{{- end -}}
