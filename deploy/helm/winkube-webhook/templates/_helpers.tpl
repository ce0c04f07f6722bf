{{/* The name of every object; the Service name is in the serving certificate. */}}
{{- define "winkube-webhook.name" -}}
{{- default .Release.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "winkube-webhook.selectorLabels" -}}
app.kubernetes.io/name: winkube-webhook
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "winkube-webhook.labels" -}}
{{ include "winkube-webhook.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "winkube-webhook.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* What both webhooks share; kept equal to pkg/webhook.Configurations (a test compares them). */}}
{{- define "winkube-webhook.common" }}
    failurePolicy: {{ .Values.failurePolicy }}
    matchPolicy: Equivalent
    sideEffects: None
    timeoutSeconds: {{ .Values.timeoutSeconds }}
    admissionReviewVersions: [v1]
    # Never kube-system nor the webhook's own namespace: the webhook must not
    # stand between the cluster and its system pods, or itself.
    namespaceSelector:
      matchExpressions:
      - key: kubernetes.io/metadata.name
        operator: NotIn
        values: [kube-system, {{ .Release.Namespace }}]
    # Objects labelled winkube.io/webhook=disabled opt out.
    objectSelector:
      matchExpressions:
      - key: winkube.io/webhook
        operator: NotIn
        values: [disabled]
{{- end }}
