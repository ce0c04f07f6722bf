{{- define "webapp.name" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}
